// commbench trend page: reads the history check embedded in the page (`commbench history check --json`) and shows,
// per series, each run's median over time (its repeats as faint dots), the change points as vertical rules, each
// segment's level and noise band, the latest run highlighted; and a table of every change point, slowest first.
// DOM built with text only (commbenchKit.el), never innerHTML: ids, commits and runner names come from files.
// window.commbenchHistory records what was drawn, for tests (lib/history/trend_browser_test.js).
(function () {
  'use strict';
  const state = {ready: false, charts: [], errors: [], tableRows: 0};
  window.commbenchHistory = state;
  const {el, visible, isNum} = window.commbenchKit;
  const str = (v) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
  const fmtUs = (us) => (isNum(us) ? us.toPrecision(4) + ' µs' : 'n/a');
  const fmtRatio = (r) => (isNum(r) ? r.toFixed(3) : 'n/a');
  const fmtP = (p) => (!isNum(p) ? 'n/a' : p < 0.0001 ? p.toExponential(1) : p.toFixed(4));

  let H;
  try {
    H = JSON.parse(document.getElementById('commbench-history').textContent);
  } catch (e) {
    state.errors.push('embedded history is not valid JSON: ' + e.message);
    console.error('commbench history: embedded JSON', e);
    return;
  }
  const series = (Array.isArray(H.series) ? H.series : []).filter((s) => s && typeof s === 'object');
  const opt = H.options || {};
  // Exit 3 has three causes, named as the series' verdicts name them: a series too short, a slowdown the runs
  // cannot tell yet (too few runs), or a slowdown beside runs measured under outside load.
  const ALONE = {'too short': 'too short to say', 'too few runs': 'too few runs to tell',
    'disturbed': 'disturbed: cannot say, re-run on a quiet runner'};
  const SHORT = {'too short': 'too short', 'too few runs': 'too few runs to tell', 'disturbed': 'disturbed'};
  const verdicts = series.map((s) => s.verdict);
  const cannotSay = Object.keys(ALONE).filter((v) => verdicts.includes(v));
  const why3 = cannotSay.length === 1 ? ALONE[cannotSay[0]] :
    cannotSay.length > 1 ? cannotSay.map((v) => SHORT[v]).join(' or ') + ': cannot say' : 'too short to say';
  const OUTCOMES = {0: 'no regression', 1: 'regression', 3: why3};
  const outcome = OUTCOMES[H.exit_code] || 'unknown';
  document.getElementById('subtitle').textContent = visible(str(H.history)) + ' · ' + series.length + ' series · ' +
    str(opt.method) + ', p ≤ ' + str(opt.alpha) + ', floor ' + (100 * opt.min_effect).toFixed(1) +
    ' %, last ' + str(opt.last) + ' runs';
  document.getElementById('outcome').appendChild(el('p', {},
    el('strong', {id: 'outcome-word'}, outcome), ' (exit ' + str(H.exit_code) + ')'));

  // The change points of every series, slowest (largest ratio) first.
  // A step small beside the noise starts somewhere in a few runs (starts_in): name them and what to bisect.
  const startsIn = (c) => {
    const r = Array.isArray(c.starts_in) ? c.starts_in : [];
    if (!(isNum(r[0]) && isNum(r[1]) && r[0] < r[1])) return '';
    const b = c.bisect || {};
    return '; starts in runs ' + r[0] + '-' + r[1] + ': bisect ' + str(b.good) + '..' + str(b.bad);
  };
  const all = [];
  series.forEach((s) => (s.changes || []).forEach((c) => all.push({s, c})));
  all.sort((a, b) => (b.c.ratio || 0) - (a.c.ratio || 0));
  const box = document.getElementById('changes');
  box.appendChild(el('h2', {}, 'Change points, slowest first'));
  if (!all.length) box.appendChild(el('p', {id: 'no-changes'}, 'No change point in any series.'));
  else {
    const table = el('table', {class: 'changes', id: 'changes-table'},
      el('tr', {}, ...['series', 'runner', 'from run', 'commit', 'time', 'before', 'after', 'ratio [95% CI]', 'p',
        'recent'].map((h) => el('th', {}, h))));
    for (const {s, c} of all) {
      const ci = Array.isArray(c.ratio_ci95) ? c.ratio_ci95 : [];
      table.appendChild(el('tr', {class: 'change-row'},
        el('td', {title: str(s.point)}, str(s.point)), el('td', {}, str(s.fingerprint)),
        el('td', {}, str(c.index) + ' (' + str(c.run) + ')' + startsIn(c)), el('td', {}, str(c.commit)),
        el('td', {}, str(c.time)),
        el('td', {}, fmtUs(c.before_us)), el('td', {}, fmtUs(c.after_us)),
        el('td', {}, fmtRatio(c.ratio) + ' [' + fmtRatio(ci[0]) + ', ' + fmtRatio(ci[1]) + ']'),
        el('td', {}, fmtP(c.p_value)), el('td', {}, c.recent ? 'yes' : 'no')));
      state.tableRows++;
    }
    box.appendChild(table);
  }

  const addChart = window.commbenchKit.chartAdder(state, 'commbench history', () => document.getElementById('charts'));
  function build(s) {
    const runs = Array.isArray(s.runs) ? s.runs : [];
    if (!runs.length) return {skip: 'the series has no runs'};
    const last = runs.length - 1;
    const points = runs.map((r, i) => ({run: i, id: str(r.id), commit: str(r.commit), time: str(r.time),
      median_us: r.median_us, latest: i === last ? 'latest run' : 'run'})).filter((r) => isNum(r.median_us));
    const repeats = [];
    runs.forEach((r, i) => (r.repeats_us || []).forEach((v) => isNum(v) && repeats.push({run: i, repeat_us: v})));
    const levels = (s.levels || []).map((l) => ({from: l.begin - 0.5, to: l.end - 0.5, level_us: l.median_us,
      lo: (l.band_us || [])[0], hi: (l.band_us || [])[1]}));
    const changes = (s.changes || []).map((c) => ({at: c.index - 0.5, label: (c.direction === 'slower' ? '+' : '') +
      (100 * (c.ratio - 1)).toFixed(1) + ' % at run ' + c.index + ' (' + str(c.commit) + '), p ' + fmtP(c.p_value)}));
    const x = {field: 'run', type: 'quantitative', title: 'run (time order)', scale: {domain: [-0.5, last + 0.5], nice: false}};
    const y = {type: 'quantitative', title: 'time per op (µs)', scale: {zero: false}};
    const layers = [
      {data: {values: levels}, mark: {type: 'rect', opacity: 0.15, color: '#4c78a8'},
        encoding: {x: {field: 'from', type: 'quantitative'}, x2: {field: 'to'}, y: Object.assign({field: 'lo'}, y), y2: {field: 'hi'}}},
      {data: {values: levels}, mark: {type: 'rule', color: '#4c78a8', strokeWidth: 2},
        encoding: {x: {field: 'from', type: 'quantitative'}, x2: {field: 'to'}, y: Object.assign({field: 'level_us'}, y),
          tooltip: [{field: 'level_us', title: 'segment level (µs)', format: '.4g'}]}},
      {data: {values: repeats}, mark: {type: 'point', opacity: 0.3, size: 12, color: '#888'},
        encoding: {x, y: Object.assign({field: 'repeat_us'}, y)}},
      {data: {values: points}, mark: {type: 'line', color: '#333', strokeWidth: 1}, encoding: {x, y: Object.assign({field: 'median_us'}, y)}},
      {data: {values: points}, mark: {type: 'point', filled: true},
        encoding: {x, y: Object.assign({field: 'median_us'}, y),
          color: {field: 'latest', type: 'nominal', scale: {domain: ['run', 'latest run'], range: ['#333', '#e45756']}, title: ''},
          size: {field: 'latest', type: 'nominal', scale: {domain: ['run', 'latest run'], range: [30, 160]}, legend: null},
          tooltip: [{field: 'run'}, {field: 'id', title: 'run id'}, {field: 'commit'}, {field: 'time'},
            {field: 'median_us', title: 'median (µs)', format: '.4g'}]}},
    ];
    if (changes.length) {
      layers.push({data: {values: changes}, mark: {type: 'rule', color: '#b3261e', strokeDash: [4, 3], strokeWidth: 2},
        encoding: {x: {field: 'at', type: 'quantitative'}, tooltip: [{field: 'label', title: 'change point'}]}});
    }
    const spec = {$schema: 'https://vega.github.io/schema/vega-lite/5.json', width: 900, height: 260, layer: layers};
    return {spec, rows: points.length, note: s.changes && s.changes.length ? s.changes.length +
      ' change point(s), dashed.' : 'No change point.'};
  }
  const pending = series.map((s, i) => {
    const title = str(s.point) + ' — ' + str(s.runner) + ' [' + str(s.fingerprint) + '] — ' + str(s.verdict);
    return addChart('chart-series-' + i, title, 'Each run\'s median of its repeats (grey dots); the shaded band is ' +
      'each segment\'s noise band, the blue line its level; the latest run is red.', () => build(s));
  });
  Promise.all(pending).then(() => {
    state.ready = true;
    state.readyAtMs = performance.now();
  });
})();
