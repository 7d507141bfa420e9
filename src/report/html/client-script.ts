/**
 * The report's own script, inlined (no network): it draws the timeline on a canvas and builds
 * the gallery a page at a time from the JSON data in the page, so 10,000 outputs stay usable —
 * only one page of cards (and of video elements) exists at once. Every text is set with
 * textContent and every file address is relative and percent-encoded: nothing a label or a
 * reason holds can become markup.
 */
export const CLIENT_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var PAGE = 48;
  var STATE_COLOUR = { 'done': '#1f9d6b', 'finished': '#7cc4a4', 'failed': '#d93a3a', 'partly failed': '#e07b22', 'rejected': '#d93a3a', 'in doubt': '#c77c02' };

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function href(path) { return data.base + path.split('/').map(encodeURIComponent).join('/'); }
  function credits(n) { return n === null ? 'unknown' : n.toLocaleString('en-US', { maximumFractionDigits: 1 }); }

  var cards = [];
  data.jobs.forEach(function (job) {
    var poster = null;
    job.f.forEach(function (f) { if (f[1] === 'image' && poster === null) poster = f[0]; });
    job.f.forEach(function (f, i) { cards.push({ job: job, path: f[0], media: f[1], poster: f[1] === 'video' ? poster : null, idx: i, files: job.f.length }); });
  });

  var stepSel = document.getElementById('filter-step');
  var stateSel = document.getElementById('filter-state');
  var search = document.getElementById('filter-text');
  var runOnly = document.getElementById('filter-run');
  var grid = document.getElementById('gallery-grid');
  var info = document.getElementById('page-info');
  var prev = document.getElementById('page-prev');
  var next = document.getElementById('page-next');
  data.steps.forEach(function (s, i) { stepSel.appendChild(el('option', { value: String(i) }, s)); });
  var present = {};
  cards.forEach(function (c) { present[c.job.st] = true; });
  data.states.forEach(function (s, i) { if (present[i]) stateSel.appendChild(el('option', { value: String(i) }, s)); });

  var page = 0;
  /** Text as the search compares it: case and accents set aside ("crêpes" finds "Crepes" and back). */
  function folded(text) { return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase(); }
  /** What the search looks in: the job's words, label, key and row, and the card's file; folded once per card. */
  function haystack(card) {
    if (card.q === undefined) card.q = folded(card.job.l + ' ' + card.job.k + ' ' + (card.job.o || '') + ' ' + card.path + ' ' + (card.job.w || ''));
    return card.q;
  }
  /** The filters as set now, read from the page once per render (not once per card: 100,000 of them). */
  function filters() {
    return { step: stepSel.value === '' ? -1 : Number(stepSel.value), state: stateSel.value === '' ? -1 : Number(stateSel.value), run: runOnly.checked, text: folded(search.value.trim()) };
  }
  function matches(card, f) {
    if (f.step >= 0 && card.job.s !== f.step) return false;
    if (f.state >= 0 && card.job.st !== f.state) return false;
    if (f.run && !card.job.r) return false;
    return f.text === '' || haystack(card).indexOf(f.text) >= 0;
  }

  function mediaOf(card, label) {
    var src = href(card.path);
    if (card.media === 'video') {
      var video = el('video', { controls: '', preload: 'metadata', src: src });
      if (card.poster) video.setAttribute('poster', href(card.poster));
      return video;
    }
    if (card.media === 'html') return el('iframe', { sandbox: 'allow-scripts', src: src, loading: 'lazy', title: label });
    if (card.media === 'image') return el('img', { src: src, alt: label, loading: 'lazy' });
    if (card.media === 'audio') return el('audio', { controls: '', preload: 'metadata', src: src });
    return el('a', { href: src }, 'open ' + card.path.split('/').pop());
  }

  function cardOf(card) {
    var job = card.job;
    var node = el('article', { 'class': 'card', 'data-step': data.steps[job.s], 'data-state': data.states[job.st], 'data-media': card.media });
    var media = el('div', { 'class': 'media' });
    media.appendChild(mediaOf(card, job.l));
    var meta = el('div', { 'class': 'meta' });
    meta.appendChild(el('b', {}, job.l));
    // What the job is, in its row's words (a script, a prompt, a title).
    if (job.w) meta.appendChild(el('p', { 'class': 'words' }, job.w));
    // What the label does not say already (a label made of the step and row says both), then the key.
    var step = data.steps[job.s];
    var about = [];
    if (job.l !== step && job.l.indexOf(step + ' · ') !== 0) about.push(step);
    if (job.o && job.l.indexOf(job.o) < 0) about.push('row ' + job.o);
    if (card.files > 1) about.push('file ' + (card.idx + 1) + ' of ' + card.files);
    about.push(job.k);
    meta.appendChild(el('div', { 'class': 'muted' }, about.join(' · ')));
    var line = el('div');
    line.appendChild(el('span', { 'class': 'badge ' + data.states[job.st].replace(' ', '-') }, data.states[job.st]));
    // A job's credits once, whichever of its files the card shows: said as the job's, not the file's.
    var whose = card.files > 1 ? ' credits used by the job (its ' + card.files + ' files)' : ' credits used';
    line.appendChild(document.createTextNode(' ' + credits(job.u) + whose + (job.e === null ? '' : ' (est. ' + credits(job.e) + ')')));
    if (job.x) line.appendChild(el('span', { 'class': 'over' }, ' over the high estimate'));
    meta.appendChild(line);
    meta.appendChild(el('a', { href: href(card.path) }, card.path));
    // Its failed items (an HTML ad's styles), each with its reason.
    (job.i || []).forEach(function (item) { meta.appendChild(el('div', { 'class': 'over' }, item[0] + ' failed: ' + item[1])); });
    // Its earlier versions' files (the row before an edit), kept in STEP/superseded/.
    (job.v || []).forEach(function (version) {
      var line = el('div', { 'class': 'muted history' }, 'earlier version ' + version[0] + ': ');
      version[1].forEach(function (path) { line.appendChild(el('a', { href: href(path) }, path.split('/').pop())); });
      meta.appendChild(line);
    });
    node.appendChild(media);
    node.appendChild(meta);
    return node;
  }

  function render() {
    var f = filters();
    var shown = f.step < 0 && f.state < 0 && !f.run && f.text === '' ? cards : cards.filter(function (card) { return matches(card, f); });
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    if (page >= pages) page = pages - 1;
    grid.replaceChildren.apply(grid, shown.slice(page * PAGE, (page + 1) * PAGE).map(cardOf));
    info.textContent = shown.length + ' of ' + cards.length + ' outputs · page ' + (page + 1) + ' of ' + pages;
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
  }
  [stepSel, stateSel, runOnly].forEach(function (c) { c.addEventListener('change', function () { page = 0; render(); }); });
  search.addEventListener('input', function () { page = 0; render(); });
  prev.addEventListener('click', function () { page--; render(); });
  next.addEventListener('click', function () { page++; render(); });
  render();

  drawTimeline(document.getElementById('timeline'));

  /** Jobs per step that have been submitted, earliest first; and the span of time they cover. */
  function timelineLanes() {
    var lanes = data.steps.map(function () { return []; });
    var t0 = Infinity, t1 = -Infinity, open = false;
    // One pass over the jobs (100,000 of them in a big report): their lanes, the span, whether one is not finished.
    for (var n = 0; n < data.jobs.length; n++) {
      var j = data.jobs[n];
      for (var k = 0; k < 3; k++) { var at = j.t[k]; if (at !== null) { if (at < t0) t0 = at; if (at > t1) t1 = at; } }
      if (j.t[0] === null) continue;
      lanes[j.s].push(j);
      if (j.t[1] === null) open = true;
    }
    lanes.forEach(function (lane) { lane.sort(function (a, b) { return a.t[0] - b.t[0]; }); });
    if (open) t1 = Math.max(t1, data.now);
    if (t1 <= t0) t1 = t0 + 1000;
    // A lane is at most 320 px tall: 10,000 jobs share it, a pixel (or less) each.
    var heights = lanes.map(function (lane) { return lane.length === 0 ? 0 : Math.min(320, lane.length * 12); });
    return { lanes: lanes, heights: heights, t0: t0, t1: t1 };
  }

  function drawTimeline(canvas) {
    var LEFT = 140, HEAD = 22, AXIS = 24;
    var t = timelineLanes();
    if (t.t0 === Infinity) { canvas.replaceWith(el('p', {}, 'No job has been submitted yet.')); return; }
    var height = AXIS + t.heights.reduce(function (sum, h, i) { return sum + (t.lanes[i].length ? HEAD + h : 0); }, 0);
    var width = Math.max(640, canvas.parentElement.clientWidth - 24);
    var ratio = window.devicePixelRatio || 1;
    canvas.width = width * ratio; canvas.height = height * ratio;
    canvas.style.width = width + 'px'; canvas.style.height = height + 'px';
    var g = canvas.getContext('2d');
    g.scale(ratio, ratio);
    g.font = '12px system-ui, sans-serif';
    var x = function (time) { return LEFT + (time - t.t0) / (t.t1 - t.t0) * (width - LEFT - 12); };
    var spans = [];
    var bands = [];
    var y = 0;
    t.lanes.forEach(function (lane, s) {
      if (lane.length === 0) return;
      g.fillStyle = '#1d2330';
      g.fillText(data.steps[s] + ' (' + lane.length + ')', 4, y + 15);
      y += HEAD;
      var row = t.heights[s] / lane.length;
      // A pencil a lane: the lane's title was written in another colour.
      var pen = pencil(g);
      lane.forEach(function (j, i) { drawJob(pen, x, j, y + i * row, row); spans.push({ top: y + i * row, bottom: y + (i + 1) * row, job: j }); });
      g.globalAlpha = 1;
      bands.push({ step: data.steps[s], jobs: lane.length, x: LEFT, y: y, width: width - LEFT, height: t.heights[s] });
      y += t.heights[s];
    });
    drawAxis(g, y, width, (t.t1 - t.t0) / 1000, LEFT);
    // Where each step's lane was drawn (CSS pixels), for a reader of the page (the report test reads its pixels).
    canvas.setAttribute('data-lanes', JSON.stringify(bands));
    canvas.addEventListener('mousemove', function (event) {
      var hit = spans.find(function (s) { return event.offsetY >= s.top && event.offsetY < s.bottom; });
      canvas.title = hit ? hit.job.l + ' — ' + data.states[hit.job.st] + ': ' + phases(hit.job.t, t.t0) + (hit.job.w ? '\n' + hit.job.w : '') : '';
    });
  }

  /**
   * Fills on the canvas, setting its colour and opacity only when they change. Why: the canvas parses a
   * colour each time it is set, and 100,000 jobs set two each.
   */
  function pencil(g) {
    var colour = null, alpha = 1;
    return function (fill, opacity, left, top, width, height) {
      if (fill !== colour) { g.fillStyle = fill; colour = fill; }
      if (opacity !== alpha) { g.globalAlpha = opacity; alpha = opacity; }
      g.fillRect(left, top, width, height);
    };
  }

  /** Submitted → finished in the state's colour (faded while not finished), then → downloaded in grey. */
  function drawJob(pen, x, j, top, row) {
    var bar = Math.max(row - (row > 4 ? 2 : 0), 0.6);
    var end = j.t[1] === null ? data.now : j.t[1];
    pen(STATE_COLOUR[data.states[j.st]] || '#2f6fdf', j.t[1] === null ? 0.45 : 1, x(j.t[0]), top, Math.max(x(end) - x(j.t[0]), 1.5), bar);
    if (j.t[2] !== null && j.t[1] !== null) pen('#9aa6ba', 1, x(j.t[1]), top, Math.max(x(j.t[2]) - x(j.t[1]), 1), bar);
  }

  function drawAxis(g, y, width, seconds, left) {
    var label = seconds < 90 ? seconds.toFixed(1) + ' s' : (seconds / 60).toFixed(1) + ' min';
    g.fillStyle = '#5b6577';
    g.fillText('0 s', left, y + 16);
    g.fillText(label, width - 12 - g.measureText(label).width, y + 16);
  }

  function phases(t, t0) {
    var secs = function (a, b) { return ((b - a) / 1000).toFixed(1) + ' s'; };
    return 'submitted at +' + secs(t0, t[0]) + (t[1] === null ? '' : ', finished after ' + secs(t[0], t[1])) +
      (t[2] === null || t[1] === null ? '' : ', downloaded after ' + secs(t[1], t[2]));
  }
})();
`;
