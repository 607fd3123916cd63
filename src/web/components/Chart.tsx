// A line chart drawn by uPlot, loaded only when a chart is shown (the list needs none of it). The canvas is
// for the eye; every chart comes with its numbers as a table for everyone else.
import { useEffect, useRef } from 'preact/hooks';
import type { ChartSpec } from './chart-spec.js';

export function Chart({ spec, label }: { spec: ChartSpec; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const key = JSON.stringify(spec);
  useEffect(() => {
    let dispose: (() => void) | undefined;
    let cancelled = false;
    void import('./uplot-chart.js').then(({ drawChart }) => {
      if (!cancelled && box.current) dispose = drawChart(box.current, spec);
    });
    return () => {
      cancelled = true;
      dispose?.();
    };
  }, [key]);
  return <div class="chart" ref={box} aria-hidden="true" data-chart={label} />;
}
