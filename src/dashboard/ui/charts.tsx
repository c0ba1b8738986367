import type { ChartPoint } from "../../modules/overview/overview.service.js";

const width = 640;
const height = 200;
const pad = { top: 12, right: 8, bottom: 28, left: 40 };

/**
 * A server-rendered SVG bar chart that scales to its container (viewBox, no fixed width), with an
 * accessible name, a summary, and the numbers in a visually hidden table for screen readers.
 */
export function BarChart(props: {
  id: string;
  title: string;
  summary: string;
  points: ChartPoint[];
  unit: string;
}) {
  const { points } = props;
  const max = Math.max(1, ...points.map((p) => p.value));
  const innerW = width - pad.left - pad.right;
  const innerH = height - pad.top - pad.bottom;
  const step = innerW / Math.max(1, points.length);
  // A few bars stay bar-shaped instead of filling the chart.
  const barW = Math.min(48, Math.max(1, step * 0.8));
  // About six labels on the x axis whatever the number of bars.
  const labelEvery = Math.max(1, Math.ceil(points.length / 6));
  return (
    <figure class="chart">
      <figcaption id={`${props.id}-title`}>{props.title}</figcaption>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-labelledby={`${props.id}-title ${props.id}-desc`}
        class="chart-svg"
      >
        <title>{props.title}</title>
        <desc id={`${props.id}-desc`}>{props.summary}</desc>
        <line
          class="chart-axis"
          x1={pad.left}
          y1={pad.top + innerH}
          x2={width - pad.right}
          y2={pad.top + innerH}
        />
        <text class="chart-label" x={pad.left - 6} y={pad.top + 8} text-anchor="end">
          {max}
        </text>
        <text class="chart-label" x={pad.left - 6} y={pad.top + innerH} text-anchor="end">
          0
        </text>
        {points.map((p, i) => {
          const h = (p.value / max) * innerH;
          const x = pad.left + i * step + (step - barW) / 2;
          return (
            <g>
              <rect class="chart-bar" x={x} y={pad.top + innerH - h} width={barW} height={h}>
                <title>{`${p.label}: ${p.value} ${props.unit}`}</title>
              </rect>
              {i % labelEvery === 0 ? (
                <text class="chart-label" x={x + barW / 2} y={height - 8} text-anchor="middle">
                  {p.label.length > 5 ? p.label.slice(5) : p.label}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      {/* In a hidden box rather than a hidden table: a table grows to its content whatever its width. */}
      <div class="visually-hidden">
        <table>
          <caption>{props.title}</caption>
          <tbody>
            {points.map((p) => (
              <tr>
                <th scope="row">{p.label}</th>
                <td>{p.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
