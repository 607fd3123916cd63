// A line chart drawn by uPlot, loaded only when a chart is shown (the list needs none of it). The canvas is
// for the eye; every chart comes with its numbers as a table for everyone else (and what a click on a
// point does, a link in that table does too).
import { useEffect, useRef } from 'preact/hooks';
import type { ChartSpec } from './chart-spec.js';

interface Props {
  spec: ChartSpec;
  label: string;
  /** A click on the plot: the index of the x value nearest to it. */
  onPick?(index: number): void;
}

export function Chart({ spec, label, onPick }: Props) {
  const box = useRef<HTMLDivElement>(null);
  // The chart is drawn again only when what it shows changes, so it calls whatever onPick is current.
  const pick = useRef(onPick);
  pick.current = onPick;
  const pickable = onPick !== undefined;
  const key = JSON.stringify(spec);
  useEffect(() => {
    let dispose: (() => void) | undefined;
    let cancelled = false;
    void import('./uplot-chart.js').then(({ drawChart }) => {
      if (!cancelled && box.current)
        dispose = drawChart(box.current, spec, pickable ? (index) => pick.current?.(index) : undefined);
    });
    return () => {
      cancelled = true;
      dispose?.();
    };
  }, [key, pickable]);
  return <div class={pickable ? 'chart pickable' : 'chart'} ref={box} aria-hidden="true" data-chart={label} />;
}
