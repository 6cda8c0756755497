#pragma once
// The pages' inline style sheet (policy and history pages): screen and print.
namespace distgrid::render::detail {

inline constexpr const char* kPageStyle = R"css(
:root { --ink: #1d232b; --muted: #5b6570; --line: #d5dbe1; --soft: #f3f5f7; --accent: #1f5fa8;
  --good: #1c7c3c; --bad: #b3261e; --warn: #9a6700; --float: #3b7dd8; --double: #d9822b; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 76rem; margin: 0 auto; padding: 1.5rem 2rem 4rem; }
h1 { font-size: 1.9rem; margin: 0.2rem 0 0.3rem; }
h2 { font-size: 1.4rem; margin: 2.4rem 0 0.6rem; padding-bottom: 0.2rem; border-bottom: 2px solid var(--line); }
h3 { font-size: 1.15rem; margin: 1.6rem 0 0.4rem; }
h4 { font-size: 1rem; margin: 1rem 0 0.3rem; }
p { margin: 0.4rem 0 0.7rem; max-width: 60rem; }
.lead { font-size: 1.05rem; color: var(--muted); }
.meta { color: var(--muted); font-size: 0.9rem; }
nav.toc { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 0.6rem 1rem; margin: 1rem 0; }
nav.toc ol { margin: 0.2rem 0; padding-left: 1.2rem; columns: 2; }
a { color: var(--accent); }
code, pre, .mono { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 0.86rem; }
pre.code { background: #f7f8fa; border: 1px solid var(--line); border-radius: 4px; padding: 0.5rem 0.7rem; overflow-x: auto; line-height: 1.35; }
pre.code .ln { color: #9aa3ad; user-select: none; display: inline-block; min-width: 3.2em; }
.formula { font-family: ui-monospace, Menlo, Consolas, monospace; background: var(--soft); padding: 0.4rem 0.6rem; border-left: 3px solid var(--accent); }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.88rem; }
th, td { border: 1px solid var(--line); padding: 0.2rem 0.5rem; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.note, .missing { border-left: 4px solid var(--warn); background: #fff8e6; padding: 0.4rem 0.7rem; margin: 0.6rem 0; }
.open-item { border-left: 4px solid var(--accent); background: #eef4fb; padding: 0.5rem 0.8rem; }
.badge { display: inline-block; border-radius: 3px; padding: 0 0.4rem; font-size: 0.8rem; font-weight: 600; border: 1px solid var(--line); background: var(--soft); white-space: nowrap; }
.badge.pass, .badge.verified, .badge.improved { color: #fff; background: var(--good); border-color: var(--good); }
.badge.fail, .badge.refuted, .badge.finding, .badge.regressed { color: #fff; background: var(--bad); border-color: var(--bad); }
.badge.inconclusive, .badge.no-budget { color: #fff; background: var(--warn); border-color: var(--warn); }
tr.finding td, .finding-text { background: #fdecea; }
.flag { color: var(--bad); font-weight: 600; }
section.file { border-top: 3px solid var(--ink); margin-top: 2.5rem; }
section.file > header { display: flex; flex-wrap: wrap; gap: 0.6rem; align-items: baseline; padding: 0.5rem 0; }
section.file > header h2 { border: 0; margin: 0; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 1.15rem; }
article.calculation { border: 1px solid var(--line); border-radius: 6px; padding: 0.3rem 1rem 0.8rem; margin: 1rem 0; }
article.calculation > h3 { margin-top: 0.8rem; }
.storage-block { border-top: 1px dashed var(--line); margin-top: 0.8rem; padding-top: 0.3rem; }
ul.where { list-style: none; padding: 0; margin: 0.6rem 0 0.2rem; display: flex; gap: 1rem; flex-wrap: wrap; color: var(--muted); font-size: 0.9rem; }
dl.detail dt { font-weight: 600; margin-top: 0.6rem; }
dl.detail dd { margin: 0.1rem 0 0.4rem 1.2rem; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: 0.1rem 0.8rem; margin: 0.3rem 0; font-size: 0.9rem; }
dl.kv dt { color: var(--muted); }
dl.kv dd { margin: 0; }
svg.chart { max-width: 100%; height: auto; display: block; margin: 0.4rem 0 0.8rem; font: 11px system-ui, sans-serif; }
svg .chart-title { font-weight: 600; font-size: 12px; }
svg .grid { stroke: #e3e7eb; }
svg .frame { fill: none; stroke: #aab3bc; }
svg .tick, svg .value { fill: var(--muted); }
svg .bar.max { fill: #b3261e; } svg .bar.p99 { fill: #e07b39; } svg .bar.rms { fill: #7a9cc6; } svg .bar.mean { fill: #3b7dd8; }
svg .bar.float { fill: var(--float); } svg .bar.double { fill: var(--double); } svg .bar.method { fill: #8a8f96; }
svg .bar.half { fill: #7b52ab; } svg .bar.q16 { fill: #2a9d8f; } svg .bar.q8 { fill: #c0397b; }
svg .line { fill: none; stroke-width: 1.6; } svg .fit { stroke-dasharray: 4 3; stroke-width: 1.2; }
svg .s0 { stroke: #1f5fa8; fill: #1f5fa8; } svg .s1 { stroke: #d9822b; fill: #d9822b; } svg .s2 { stroke: #1c7c3c; fill: #1c7c3c; }
svg .s3 { stroke: #b3261e; fill: #b3261e; } svg .s4 { stroke: #6f42c1; fill: #6f42c1; } svg .s5 { stroke: #5b6570; fill: #5b6570; }
svg .line.s0, svg .line.s1, svg .line.s2, svg .line.s3, svg .line.s4, svg .line.s5,
svg .fit.s0, svg .fit.s1, svg .fit.s2, svg .fit.s3, svg .fit.s4, svg .fit.s5 { fill: none; }
.charts { display: flex; flex-wrap: wrap; gap: 0 1.5rem; }
.banner { border-radius: 6px; padding: 0.5rem 0.9rem; margin: 0.8rem 0 1rem; font-weight: 600; border: 1px solid var(--warn); background: #fff8e6; color: var(--warn); }
.banner.pass { border-color: var(--good); background: #e8f5ec; color: var(--good); }
.banner.fail { border-color: var(--bad); background: #fdecea; color: var(--bad); }
.banner .sub { display: block; font-weight: 400; color: var(--ink); font-size: 0.9rem; }
.change { font-size: 0.78rem; white-space: nowrap; color: var(--muted); }
.change.regressed, .change.disappeared { color: var(--bad); font-weight: 600; } .change.improved { color: var(--good); }
svg .line.p99 { stroke-dasharray: 2 2; stroke-width: 1.2; } svg .line.budget { stroke-dasharray: 7 3; stroke-width: 1.2; }
svg .point.unlike { fill: #fff; stroke-width: 1.4; }
svg rect.gate { fill: var(--warn); } svg rect.gate.pass { fill: var(--good); } svg rect.gate.fail { fill: var(--bad); }
svg .gate-label { fill: #fff; font-size: 9px; }
footer { margin-top: 3rem; color: var(--muted); font-size: 0.85rem; border-top: 1px solid var(--line); padding-top: 0.6rem; }
@media (max-width: 50rem) { main { padding: 1rem; } nav.toc ol { columns: 1; } }
@media print {
  @page { margin: 14mm 12mm; }
  body { font-size: 10pt; }
  main { max-width: none; padding: 0; }
  nav.toc { display: none; }
  a { color: inherit; text-decoration: none; }
  pre.code { white-space: pre-wrap; word-break: break-all; overflow: visible; font-size: 7.5pt; }
  article.calculation, table, svg.chart, .open-item { break-inside: avoid; }
  h2, h3, h4 { break-after: avoid; }
  section.file { break-before: page; }
  .badge, .banner, tr.finding td, .finding-text, svg .bar, svg rect.gate { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
}
)css";

}  // namespace distgrid::render::detail
