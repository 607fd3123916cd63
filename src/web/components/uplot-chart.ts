// The uPlot side of Chart (its own chunk). uPlot plots numbers, so the API's strings become numbers here
// for the drawing alone; the values shown in the legend are the API's strings, formatted. The legend
// always shows a point: the hovered one, else the spec's resting point (the latest day), never a dash.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { browserLocale, formatDay, formatRate } from '../format.js';
import type { ChartSpec } from './chart-spec.js';

const HEIGHT = 260;
const AXIS = { stroke: '#374151', grid: { stroke: '#e5e7eb', width: 1 }, ticks: { stroke: '#d1d5db', width: 1 } };

/** Draws the chart; with onPick, a click (not a drag, which zooms) picks the x value nearest to it. */
export function drawChart(el: HTMLElement, spec: ChartSpec, onPick?: (index: number) => void): () => void {
  const locale = browserLocale();
  const tick = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  const shortDay = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' });
  const time = spec.xKind === 'time';
  const data: uPlot.AlignedData = [
    spec.x,
    ...spec.series.map((s) => s.values.map((v) => (v === null ? null : Number(v)))),
  ];
  const rest = spec.restIndex ?? spec.x.length - 1;
  const at = (idx: number | null) => idx ?? rest;
  const xValue = (idx: number | null) => {
    const v = spec.x[at(idx)];
    if (v === undefined) return '';
    return time ? formatDay(new Date(v * 1000).toISOString().slice(0, 10), locale) : `${v} months`;
  };
  const options: uPlot.Options = {
    width: Math.max(el.clientWidth, 280),
    height: HEIGHT,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: { x: { time } },
    cursor: { points: { size: 6 } },
    legend: { live: true },
    axes: [
      {
        ...AXIS,
        values: time
          ? (_u, ticks) => ticks.map((t) => shortDay.format(new Date(t * 1000)))
          : (_u, ticks) => ticks.map((t) => tick.format(t)),
      },
      { ...AXIS, size: 56, values: (_u, ticks) => ticks.map((t) => `${tick.format(t)} %`) },
    ],
    series: [
      { label: time ? 'Day' : 'Term', value: (_u, _v, _si, idx) => xValue(idx) },
      ...spec.series.map((s) => ({
        label: s.label,
        stroke: s.color,
        width: 2,
        spanGaps: true,
        points: { show: spec.points ?? false, size: 7, fill: s.color },
        paths: spec.stepped ? uPlot.paths.stepped!({ align: 1 }) : undefined,
        value: (_u: uPlot, _v: number | null, _si: number, idx: number | null) => {
          const text = s.values[at(idx)];
          return text == null ? 'none' : formatRate(text, locale);
        },
      })),
    ],
  };
  const plot = new uPlot(options, data, el);
  let down: { x: number; y: number } | null = null;
  const pressed = (e: MouseEvent) => {
    down = { x: e.clientX, y: e.clientY };
  };
  const clicked = (e: MouseEvent) => {
    const dragged = down !== null && Math.hypot(e.clientX - down.x, e.clientY - down.y) > 4;
    down = null;
    if (dragged || !onPick) return;
    const index = plot.posToIdx(e.clientX - plot.over.getBoundingClientRect().left);
    if (index >= 0 && index < spec.x.length) onPick(index);
  };
  if (onPick) {
    plot.over.addEventListener('mousedown', pressed);
    plot.over.addEventListener('click', clicked);
  }
  const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 280), height: HEIGHT }));
  resize.observe(el);
  return () => {
    resize.disconnect();
    plot.over.removeEventListener('mousedown', pressed);
    plot.over.removeEventListener('click', clicked);
    plot.destroy();
  };
}
