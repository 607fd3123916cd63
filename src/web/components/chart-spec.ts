// What a chart shows: Chart.tsx takes it, uplot-chart.ts draws it (its own chunk, loaded when a chart is
// shown), so it lives apart from both.

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
