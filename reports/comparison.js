// commbench comparison page: reads the comparison JSON embedded in the page (reports/comparison.schema.json, as
// `commbench compare --json` writes it) and shows the outcome, the environment differences, each point's ratio
// with its interval, before/after curves and every point's numbers. Everything is built with DOM calls
// (textContent), never innerHTML: ids, environment values and reasons come from files.
//
// window.commbenchComparison records what was drawn, for tests (reports/tools/comparison_browser_test.js).
(function () {
  'use strict';

  const state = {ready: false, charts: [], errors: [], tableRows: 0};
  window.commbenchComparison = state;

  // ---------- small helpers ----------
  const {el, visible, isNum, uniq, fmtBytes, scaleFor, chartAdder} = window.commbenchKit;
  const str = (v) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

  function fmtTime(us) {
    if (!isNum(us)) return 'n/a';
    if (us >= 1e6) return (us / 1e6).toPrecision(3) + ' s';
    if (us >= 1e3) return (us / 1e3).toPrecision(3) + ' ms';
    return us.toPrecision(3) + ' µs';
  }
  const fmtRatio = (r) => (isNum(r) ? r.toFixed(3) : 'n/a');
  const fmtPct = (f) => (isNum(f) ? (100 * f).toFixed(f < 0.1 ? 1 : 0) + ' %' : 'n/a');
  function fmtChange(r) {
    if (!isNum(r)) return '';
    const pct = (100 * (r - 1)).toFixed(1);
    return (Number(pct) > 0 ? '+' : Number(pct) < 0 ? '−' : '') + pct.replace('-', '') + ' %';
  }
  const fmtP = (p) => (!isNum(p) ? 'n/a' : p < 0.0001 ? p.toExponential(1) : p.toFixed(4));
  // ---------- the data ----------
  let C;
  try {
    C = JSON.parse(document.getElementById('commbench-comparison').textContent);
  } catch (e) {
    state.errors.push('embedded comparison is not valid JSON: ' + e.message);
    console.error('commbench comparison: embedded comparison is not valid JSON', e);
    return;
  }
  const points = (Array.isArray(C.points) ? C.points : []).filter((p) => p && typeof p === 'object');
  const options = C.options && typeof C.options === 'object' ? C.options : {};
  const minEffect = isNum(options.min_effect) ? options.min_effect : 0.05;
  // A point's own floor (--min-effect-below gives small messages another one).
  const floorOf = (p) => (isNum(p.min_effect) ? p.min_effect : minEffect);
  const floorsBelow = (Array.isArray(options.min_effect_below) ? options.min_effect_below : [])
    .filter((f) => f && isNum(f.bytes) && isNum(f.min_effect));
  const floorText = '±' + fmtPct(minEffect) + floorsBelow.map((f) => ', ±' + fmtPct(f.min_effect) + ' below ' +
    fmtBytes(f.bytes)).join('');
  const envDiffs = (Array.isArray(C.environment_differences) ? C.environment_differences : [])
    .filter((d) => d && typeof d === 'object');
  const problems = (Array.isArray(C.problems) ? C.problems : []).map(str);

  // One colour per verdict, the same in the charts, the badges (comparison.css) and the legend.
  const VERDICTS = ['slower', 'faster', 'unchanged', 'inconclusive', 'wrong result'];
  const VERDICT_COLORS = ['#b3261e', '#1f7a3a', '#5b6475', '#a15c00', '#6a1b9a'];
  const verdictOf = (p) => (VERDICTS.includes(p.verdict) ? p.verdict : 'inconclusive');
  const verdictBadge = (v) => el('span', {class: 'verdict ' + v.replace(/ /g, '-')}, v);

  // The axes that tell points apart name them in charts and tables; the others go into the subtitle.
  const AXES = ['backend', 'op', 'algo', 'dtype', 'reduce', 'groups', 'group_size', 'bytes', 'in_place', 'sync',
    'concurrency', 'ranks_per_process', 'pin', 'cpus', 'stream', 'h2d', 'h2d_bytes', 'graph', 'phase'];
  const AXIS_LABEL = {
    groups: (v) => 'G=' + v, group_size: (v) => 'k=' + v, bytes: (v) => fmtBytes(v), sync: (v) => 'sync=' + v,
    concurrency: (v) => (v === 'sequential' ? 'in turns' : 'at once'), ranks_per_process: (v) => v + ' ranks/proc',
    pin: (v) => 'pin=' + v, cpus: (v) => 'cpus=' + (v || 'all'), stream: (v) => 'stream=' + v, h2d: (v) => 'h2d=' + v,
    h2d_bytes: (v) => 'h2d ' + fmtBytes(v), graph: (v) => (v ? 'graph' : 'no graph'),
    in_place: (v) => (v ? 'in-place' : 'out-of-place'), phase: (v) => 'phase ' + v,
  };
  const axesOf = (p) => (p.axes && typeof p.axes === 'object' ? p.axes : {});
  const axisText = (a, v) => (AXIS_LABEL[a] ? AXIS_LABEL[a](v) : str(v));
  const valueKey = (v) => JSON.stringify(v === undefined ? null : v);
  const varying = AXES.filter((a) => uniq(points.map((p) => valueKey(axesOf(p)[a]))).length > 1);
  const DEFAULTS = {ranks_per_process: 1, pin: 'none', h2d_bytes: 0, graph: false, in_place: true, cpus: '',
    concurrency: 'concurrent'};
  const constant = AXES.filter((a) => !varying.includes(a) && points.length && axesOf(points[0])[a] != null &&
    axesOf(points[0])[a] !== '' && DEFAULTS[a] !== axesOf(points[0])[a]);
  function labelOf(p, axes) {
    const ax = axesOf(p);
    return axes.filter((a) => ax[a] != null && ax[a] !== '').map((a) => axisText(a, ax[a])).join(' ');
  }
  // A point's name: what differs between points; its id when that is not unique (or says nothing).
  const shortLabels = points.map((p) => labelOf(p, varying));
  const useIds = shortLabels.some((l) => !l) || uniq(shortLabels).length !== shortLabels.length;
  const nameOf = new Map(points.map((p, i) => [p, useIds ? str(p.id) : shortLabels[i]]));
  const sizes = uniq(points.map((p) => axesOf(p).bytes).filter(isNum)).sort((a, b) => a - b);
  const groupCounts = uniq(points.map((p) => axesOf(p).groups).filter(isNum)).sort((a, b) => a - b);

  // ---------- the outcome ----------
  const EXIT_MEANING = {
    0: 'no regression',
    1: 'a regression or a wrong result: the check fails',
    3: 'inconclusive or incomparable: not a pass, and should not pass silently',
  };
  function outcomeText(outcome, counts) {
    const band = floorText;
    if (outcome === 'pass') {
      return 'No point got slower by the minimum effect (' + band + ') or more, every point could be judged, and ' +
        'the environments match in everything that changes timings.';
    }
    if (outcome === 'regression') {
      const parts = [];
      if (counts['wrong result']) parts.push(counts['wrong result'] + ' point(s) computed a wrong result on the new side');
      if (counts.slower) {
        parts.push(counts.slower + ' point(s) got slower: a significant rank test and a 95 % interval of the ratio ' +
          'above 1 that reaches past the minimum effect (' + band + ')');
      }
      return (parts.join('; ') || 'A regression') + '.';
    }
    if (outcome === 'incomparable') {
      return 'The two environments differ in something that changes timings (below), so no slowdown is judged. ' +
        'Compare results from like hardware and software, or pass --allow-env-drift to judge them anyway.';
    }
    return 'The data cannot tell for ' + (counts.inconclusive || 0) + ' point(s)' +
      (problems.length ? ' or the files have problems (below)' : '') + ': too few repeats, noise above the ' +
      'minimum effect (' + band + '), a point on one side only, or a file that ended early. This is not a pass.';
  }
  function renderOutcome() {
    const sub = document.getElementById('subtitle');
    sub.appendChild(el('span', {class: 'sides'}, 'base ', el('code', {}, str(C.base)), ' → new ', el('code', {}, str(C.new))));
    sub.appendChild(el('br'));
    sub.appendChild(document.createTextNode([
      points.length + (points.length === 1 ? ' point' : ' points'),
      constant.length ? constant.map((a) => axisText(a, axesOf(points[0])[a])).join(', ') : null,
      'minimum effect ' + floorText, isNum(options.alpha) ? 'α = ' + options.alpha : null,
      options.allow_env_drift ? 'environment drift allowed' : null,
    ].filter(Boolean).join(' · ')));

    const outcome = ['pass', 'regression', 'inconclusive', 'incomparable'].includes(C.outcome) ? C.outcome : 'inconclusive';
    const counts = {};
    for (const p of points) counts[verdictOf(p)] = (counts[verdictOf(p)] || 0) + 1;
    const code = isNum(C.exit_code) ? C.exit_code : null;
    const box = document.getElementById('outcome');
    box.appendChild(el('div', {class: 'outcome-box ' + outcome, id: 'outcome-box'},
      el('span', {class: 'word', id: 'outcome-word'}, outcome),
      el('span', {class: 'exit'}, code === null ? '' : 'exit code ' + code + ': ' + (EXIT_MEANING[code] || 'unknown')),
      el('p', {id: 'outcome-text'}, outcomeText(outcome, counts)),
      el('p', {class: 'muted', id: 'verdict-counts'}, VERDICTS.filter((v) => counts[v]).map((v) => counts[v] + ' ' + v)
        .join(', ') + (points.length ? ' of ' + points.length + ' point' + (points.length === 1 ? '' : 's') : 'no points') + '.')));
    if (problems.length) {
      box.appendChild(el('h2', {}, 'Problems'));
      box.appendChild(el('ul', {class: 'problems', id: 'problems'}, ...problems.map((p) => el('li', {}, p))));
    }
  }

  function renderEnvironment() {
    const box = document.getElementById('environment');
    box.appendChild(el('h2', {}, 'Environment differences'));
    if (!envDiffs.length) {
      box.appendChild(el('p', {class: 'muted', id: 'no-envdiff'},
        'None: the CPU, cores and affinity, CPU quota, OS, backend and GPU software versions and the NCCL_/GLOO_/CUDA_/OMP_ ' +
        'variables match (host names may differ).'));
      return;
    }
    const table = el('table', {class: 'envdiff', id: 'envdiff'},
      el('tr', {}, el('th', {}, 'key'), el('th', {}, 'base'), el('th', {}, 'new'), el('th', {}, '')));
    for (const d of envDiffs) {
      const absent = (v) => (str(v) === '' ? '(absent)' : str(v));
      table.appendChild(el('tr', {}, el('td', {}, str(d.key)), el('td', {}, absent(d.base)), el('td', {}, absent(d.new)),
        d.varied ? el('td', {class: 'varied'}, 'set on purpose (gate --ab variant): not drift') :
          el('td', {class: 'varied'}, options.allow_env_drift ? 'drift, allowed' : 'drift')));
    }
    box.appendChild(table);
  }

  // ---------- charts ----------
  const chartsBox = () => document.getElementById('charts');
  // Registers a chart box; `build` returns {spec, rows, note} or {skip: 'reason'}.
  const addChart = chartAdder(state, 'commbench comparison', chartsBox);
  const verdictColor = (rows) => {
    const present = VERDICTS.filter((v) => rows.some((r) => r.verdict === v));
    return {field: 'verdict', type: 'nominal', title: 'verdict',
      scale: {domain: present, range: present.map((v) => VERDICT_COLORS[VERDICTS.indexOf(v)])}};
  };

  // 1. new/base ratio of medians with its 95 % interval, per point, against 1 and the ±min_effect band.
  function ratioChart() {
    const rows = points.filter((p) => isNum(p.ratio)).map((p) => {
      const ci = Array.isArray(p.ratio_ci95) ? p.ratio_ci95 : [];
      return {
        point: nameOf.get(p), id: str(p.id), verdict: verdictOf(p), ratio: p.ratio,
        lo: isNum(ci[0]) ? ci[0] : p.ratio, hi: isNum(ci[1]) ? ci[1] : p.ratio, change: fmtChange(p.ratio),
        base_us: p.base_median_us, new_us: p.new_median_us, p: p.p_value, reason: str(p.reason),
        floor_lo: 1 - floorOf(p), floor_hi: 1 + floorOf(p),
      };
    });
    if (!rows.length) return {skip: 'no point has a ratio (each was on one side only, or a side had no repeats).'};
    const values = rows.flatMap((r) => [r.lo, r.hi, r.ratio, r.floor_lo, r.floor_hi]);
    const lo = Math.min(...values), hi = Math.max(...values), pad = (hi - lo) * 0.05 || 0.01;
    const x = {type: 'quantitative', title: 'new ÷ base, median time (95 % interval)',
      scale: {domain: [lo - pad, hi + pad], zero: false, nice: false}};
    const order = rows.map((r) => r.point);
    const y = {field: 'point', type: 'nominal', sort: order, title: null, axis: {labelLimit: 380}};
    const color = verdictColor(rows);
    const tooltip = [
      {field: 'point', title: 'point'}, {field: 'verdict', title: 'verdict'},
      {field: 'ratio', title: 'ratio new/base', format: '.4f'}, {field: 'lo', title: '95 % low', format: '.4f'},
      {field: 'hi', title: '95 % high', format: '.4f'}, {field: 'change', title: 'change'},
      {field: 'base_us', title: 'base median (µs)', format: '.4~g'}, {field: 'new_us', title: 'new median (µs)', format: '.4~g'},
      {field: 'p', title: 'p (rank test)', format: '.4~g'}, {field: 'id', title: 'id'},
    ];
    const missing = points.length - rows.length;
    return {
      rows: rows.length,
      note: 'Grey band: each point\'s minimum effect (' + floorText + '); line: 1 (no change).' +
        (missing ? ' ' + missing + ' point(s) without a ratio are listed in the table below.' : ''),
      spec: {
        width: 520, height: Math.max(40, rows.length * 22),
        layer: [
          {data: {values: rows}, mark: {type: 'bar', color: '#9aa3b2', opacity: 0.25},
            encoding: {x: Object.assign({field: 'floor_lo'}, x), x2: {field: 'floor_hi'}, y}},
          {data: {values: [{one: 1}]}, mark: {type: 'rule', color: '#333', strokeDash: [4, 3]},
            encoding: {x: Object.assign({field: 'one'}, x)}},
          {data: {values: rows}, mark: {type: 'rule', strokeWidth: 2.5},
            encoding: {x: Object.assign({field: 'lo'}, x), x2: {field: 'hi'}, y, color, tooltip}},
          {data: {values: rows}, mark: {type: 'point', filled: true, size: 70, opacity: 1},
            encoding: {x: Object.assign({field: 'ratio'}, x), y, color, tooltip}},
        ],
      },
    };
  }

  // 2. Before/after: base and new medians against message size (or group count), one line per side, one panel
  // per configuration of the other axes.
  function beforeAfter() {
    const xAxis = sizes.length >= 2 ? 'bytes' : groupCounts.length >= 2 ? 'groups' : null;
    if (!xAxis) return {skip: 'the points share one message size and one group count: see the ratio chart.'};
    const others = varying.filter((a) => a !== xAxis);
    const rows = [];
    for (const p of points) {
      const ax = axesOf(p);
      if (!isNum(ax[xAxis])) continue;
      for (const [side, median, repeats] of [['base', p.base_median_us, p.base_us], ['new', p.new_median_us, p.new_us]]) {
        if (!isNum(median)) continue;
        const rs = (Array.isArray(repeats) ? repeats : []).filter(isNum);
        rows.push({
          series: labelOf(p, others) || 'all points', side, x: ax[xAxis], size: fmtBytes(ax.bytes), groups: ax.groups,
          median_us: median, repeats: rs.length, min_us: rs.length ? Math.min(...rs) : null,
          max_us: rs.length ? Math.max(...rs) : null, verdict: verdictOf(p), change: fmtChange(p.ratio), id: str(p.id),
        });
      }
    }
    if (!rows.length) return {skip: 'no point has a median on either side.'};
    const series = uniq(rows.map((r) => r.series));
    const x = xAxis === 'bytes' ?
      {field: 'x', type: 'quantitative', title: 'message size', scale: {type: 'log'},
        axis: {values: sizes, labelExpr: "datum.value >= 1048576 ? format(datum.value / 1048576, '.3~g') + ' MiB' : " +
          "datum.value >= 1024 ? format(datum.value / 1024, '.3~g') + ' KiB' : datum.value + ' B'", labelOverlap: true}} :
      {field: 'x', type: 'quantitative', title: 'groups (G)', axis: {tickMinStep: 1, format: 'd'}, scale: {zero: false, nice: false}};
    const y = {field: 'median_us', type: 'quantitative', title: 'median of the repeats\' p50 (µs)',
      scale: scaleFor(rows.map((r) => r.median_us)), axis: {tickCount: 5, labelOverlap: 'greedy'}};
    const color = {field: 'side', type: 'nominal', title: 'side', scale: {domain: ['base', 'new'], range: ['#4c78a8', '#e45756']},
      legend: {symbolOpacity: 1}};
    const tooltip = [
      {field: 'series', title: 'configuration'}, {field: 'side', title: 'side'}, {field: 'size', title: 'size'},
      {field: 'groups', title: 'G'}, {field: 'median_us', title: 'median (µs)', format: '.4~g'},
      {field: 'repeats', title: 'repeats'}, {field: 'min_us', title: 'fastest repeat (µs)', format: '.4~g'},
      {field: 'max_us', title: 'slowest repeat (µs)', format: '.4~g'}, {field: 'verdict', title: 'verdict'},
      {field: 'change', title: 'change'}, {field: 'id', title: 'point'},
    ];
    // The base line wide and pale under a thin new one, so that both show where they coincide (unchanged).
    const line = (side, style) => ({transform: [{filter: {field: 'side', equal: side}}],
      mark: Object.assign({type: 'line'}, style), encoding: {x, y, color}});
    const layer = [
      line('base', {strokeWidth: 5, opacity: 0.45}), line('new', {strokeWidth: 1.8}),
      {mark: {type: 'point', filled: true, size: 45, opacity: 1}, encoding: {x, y, color, tooltip}},
    ];
    const note = series.length > 1 ? 'One panel per ' + others.map((a) => a.replace(/_/g, ' ')).join(' / ') + '.' : '';
    if (series.length === 1) return {rows: rows.length, note, spec: {width: 480, height: 280, data: {values: rows}, layer}};
    return {
      rows: rows.length, note,
      spec: {
        data: {values: rows},
        facet: {field: 'series', type: 'nominal', title: null, sort: series, header: {labelLimit: 300}},
        // Full rows where the count allows (4 panels as 2 x 2, not 3 + 1).
        columns: series.length <= 3 ? series.length : series.length === 4 ? 2 : 3,
        spec: {width: 260, height: 190, layer},
        // Each panel its own axes: a wrapped last row then leaves no empty axis under a missing panel.
        resolve: {scale: {y: 'independent'}, axis: {x: 'independent'}},
      },
    };
  }

  // ---------- every point ----------
  function renderTable() {
    const box = document.getElementById('points');
    box.appendChild(el('h2', {}, 'Every point'));
    if (!points.length) {
      box.appendChild(el('p', {class: 'muted'}, 'No points to compare.'));
      return;
    }
    const repeats = (v) => (Array.isArray(v) ? v.length : 0);
    const cols = [
      ['point', (p) => nameOf.get(p), 'id'],
      ['verdict', (p) => verdictBadge(verdictOf(p))],
      ['base median', (p) => fmtTime(p.base_median_us) + ' (' + repeats(p.base_us) + ')'],
      ['new median', (p) => fmtTime(p.new_median_us) + ' (' + repeats(p.new_us) + ')'],
      ['ratio [95 % CI]', (p) => (isNum(p.ratio) ? fmtRatio(p.ratio) + ' [' + fmtRatio((p.ratio_ci95 || [])[0]) + ', ' +
        fmtRatio((p.ratio_ci95 || [])[1]) + ']' : 'n/a')],
      ['change', (p) => fmtChange(p.ratio)],
      ['p', (p) => fmtP(p.p_value)],
      ['detectable', (p) => (isNum(p.detectable) ? '±' + fmtPct(p.detectable) : p.p_value === null ? 'n/a' : 'none (too few repeats)')],
      ['reason', (p) => str(p.reason), 'reason'],
    ];
    const table = el('table', {class: 'points', id: 'points-table'},
      el('tr', {}, ...cols.map(([h]) => el('th', {}, h))));
    for (const p of points) {
      const row = el('tr', {class: 'point-row'}, ...cols.map(([, f, cls]) => el('td', cls ? {class: cls} : {}, f(p))));
      // The full id on hover when the row shows a short name; the attribute is set as text, never parsed.
      if (!useIds) row.firstChild.title = visible(str(p.id));
      table.appendChild(row);
    }
    state.tableRows = points.length;
    box.appendChild(el('p', {class: 'muted'}, 'Medians are of each side\'s independent repeats (their count in ' +
      'parentheses); p is the two-sided Mann-Whitney test; "detectable" is the smallest change these repeats could ' +
      'detect at α' + (isNum(options.alpha) ? ' = ' + options.alpha : '') + ' with 80 % power.'));
    box.appendChild(el('div', {class: 'scroll'}, table));
  }

  // ---------- main ----------
  const started = performance.now();
  renderOutcome();
  renderEnvironment();
  const drawn = [
    addChart('chart-ratio', '1. Ratio new ÷ base per point',
      'Each point\'s ratio of median times with its 95 % bootstrap interval, coloured by verdict: right of 1 is slower.',
      ratioChart),
    addChart('chart-before-after', '2. Before and after',
      'The median time of each side\'s repeats, base and new.', beforeAfter),
  ];
  renderTable();
  Promise.all(drawn).then(() => {
    state.renderMs = performance.now() - started;
    state.readyAtMs = performance.now();
    state.ready = true;
    document.body.setAttribute('data-ready', 'true');
  });
})();
