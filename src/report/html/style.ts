/** The report's stylesheet, inlined: the file fetches nothing, so it reads the same offline. */
export const STYLE = `
:root{--ink:#1d2330;--muted:#5b6577;--line:#dde2ea;--bg:#f6f7f9;--card:#fff;--accent:#2f6fdf;--used:#1f9d6b;--over:#d93a3a;--warn:#c77c02}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:var(--bg)}
header.top{background:#16203a;color:#fff;padding:18px 28px}
header.top h1{margin:0 0 4px;font-size:22px}
header.top p{margin:2px 0;color:#c9d3e6;font-size:13px;word-break:break-all}
main{padding:8px 28px 40px;max-width:1400px}
section{margin-top:26px}
h2{font-size:17px;margin:0 0 10px}
.tiles{display:flex;flex-wrap:wrap;gap:12px}
.tile{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:12px 16px;min-width:140px}
.tile b{display:block;font-size:24px}
.tile span{color:var(--muted);font-size:12px}
.tile.bad b{color:var(--over)}
table{border-collapse:collapse;background:var(--card);border:1px solid var(--line)}
th,td{padding:6px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.over{color:var(--over);font-weight:600}
.muted{color:var(--muted)}
.badge{display:inline-block;border-radius:9px;padding:0 8px;font-size:12px;background:#e8ecf3;color:var(--ink)}
.badge.done{background:#dcf3e8;color:#126445}.badge.failed,.badge.rejected{background:#fbe0e0;color:#9d1c1c}
.badge.in-doubt{background:#fff0d6;color:#8a5300}.badge.partly-failed{background:#fde8d4;color:#8a3f00}.badge.hook-failed{background:#f6e3f7;color:#7a1d7e}
.hook-tail{margin:4px 0 0;padding:6px 8px;background:#f6f7f9;border-radius:6px;font-size:12px;white-space:pre-wrap;max-height:12em;overflow:auto}
.budget-bar{position:relative;height:18px;width:min(640px,100%);background:#e8ecf3;border-radius:9px;overflow:hidden;margin:8px 0}
.budget-bar i{position:absolute;top:0;bottom:0;left:0;display:block}
.chart text{font-size:12px;fill:var(--ink)}
.timeline-wrap{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:10px;overflow-x:auto}
.legend{display:flex;gap:14px;font-size:12px;color:var(--muted);margin:6px 0}
.legend i{display:inline-block;width:14px;height:8px;margin-right:4px;vertical-align:middle}
.attention li{margin:6px 0}
.attention .why{display:block;color:var(--muted)}
.controls{display:flex;flex-wrap:wrap;gap:10px;align-items:center;margin-bottom:12px}
.controls select,.controls input,.controls button{font:inherit;padding:4px 8px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(230px,1fr));gap:14px}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;overflow:hidden;display:flex;flex-direction:column}
.card .media{background:#111;display:flex;align-items:center;justify-content:center;height:300px}
.card video{width:100%;max-height:300px;display:block}
.card img{max-width:100%;max-height:300px;display:block}
.card iframe{width:100%;height:300px;border:0;background:#fff}
.card .media a{color:#fff}
.card .meta{padding:8px 10px;font-size:12px}
.card .meta b{display:block;font-size:13px;word-break:break-word}
.card .words{margin:4px 0;font-size:13px;line-height:1.35;color:var(--ink);word-break:break-word}
.pager{margin-top:12px;display:flex;gap:10px;align-items:center}
footer{color:var(--muted);font-size:12px;margin-top:30px}
`;
