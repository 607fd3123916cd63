// A line chart drawn by uPlot, loaded only when a chart is shown (the list needs none of it). The canvas is
// for the eye; every chart comes with its numbers as a table for everyone else.
import { useEffect, useRef } from 'preact/hooks';

export interface ChartSeries {
  label: string;
  /** The API's decimal strings, null where there is no value. */
  values: (string | null)[];
  color: string;
}

export interface ChartSpec {
  /** x values: unix seconds for days, months for terms */
  x: number[];
  xKind: 'time' | 'months';
  series: ChartSeries[];
  stepped?: boolean;
  points?: boolean;
  /** The point the legend shows while no point is hovered (default: the last, the latest day). */
  restIndex?: number;
}

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
