// commbench HTML report: reads the result JSON embedded in the page and draws the verdict, the charts that
// prove it, and the environment. Everything is built with DOM calls (textContent), never innerHTML, because the
// result holds user-controlled strings (command line, variables, error messages).
//
// Each chart is a Vega-Lite spec built from the points; a chart whose data the sweep lacks is replaced by one
// sentence saying why, never drawn as an empty frame. window.commbenchReport records what was drawn for tests.
(function () {
  'use strict';

  const state = {ready: false, charts: [], errors: []};
  window.commbenchReport = state;

  // ---------- small helpers ----------
  const {el, visible, isNum, uniq, fmtBytes, scaleFor, chartAdder} = window.commbenchKit;
  const get = (obj, path) => path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);

  function fmtTime(us) {
    if (!isNum(us)) return '?';
    if (us >= 1e6) return (us / 1e6).toPrecision(3) + ' s';
    if (us >= 1e3) return (us / 1e3).toPrecision(3) + ' ms';
    return us.toPrecision(3) + ' µs';
  }
  // A time that older files may lack: an empty cell then.
  const optTime = (us) => (isNum(us) ? fmtTime(us) : '');
  function fmtNum(v, digits) {
    if (!isNum(v)) return String(v);
    return Math.abs(v) >= 1000 ? Math.round(v).toLocaleString('en') : Number(v.toPrecision(digits || 3)).toString();
  }

  // ---------- the data ----------
  let R;
  try {
    R = JSON.parse(document.getElementById('commbench-result').textContent);
  } catch (e) {
    state.errors.push('embedded result is not valid JSON: ' + e.message);
    console.error('commbench report: embedded result is not valid JSON', e);
    return;
  }
  const points = (Array.isArray(R.points) ? R.points : []).filter((p) => p && typeof p === 'object');
  const fits = Array.isArray(R.fits) ? R.fits : [];
  const findings = Array.isArray(R.findings) ? R.findings.slice() : [];
  const env = R.environment || {};

  // Every axis of a point except groups: points that agree on all of them form one series (one line).
  const SERIES_AXES = ['backend', 'op', 'algo', 'dtype', 'reduce', 'bytes', 'group_size', 'sync', 'concurrency',
    'ranks_per_process', 'pin', 'cpus', 'stream', 'h2d', 'h2d_bytes', 'graph', 'in_place'];
  const AXIS_LABEL = {
    backend: (v) => v, op: (v) => v, algo: (v) => v, dtype: (v) => v, reduce: (v) => v,
    bytes: (v) => fmtBytes(v), group_size: (v) => 'k=' + v, sync: (v) => 'sync=' + v,
    concurrency: (v) => (v === 'sequential' ? 'in turns' : 'at once'),
    ranks_per_process: (v) => v + ' ranks/proc', pin: (v) => 'pin=' + v, cpus: (v) => 'cpus=' + (v || 'all'),
    stream: (v) => 'stream=' + v, h2d: (v) => 'h2d=' + v, h2d_bytes: (v) => 'h2d ' + fmtBytes(v),
    graph: (v) => (v ? 'graph' : 'no graph'), in_place: (v) => (v ? 'in-place' : 'out-of-place'),
  };
  const valueKey = (v) => JSON.stringify(v === undefined ? null : v);
  const varying = SERIES_AXES.filter((a) => uniq(points.map((p) => valueKey(p[a]))).length > 1);
  // Values that only restate a default are left out of the subtitle.
  const DEFAULTS = {ranks_per_process: 1, pin: 'none', h2d_bytes: 0, graph: false, in_place: true, cpus: '',
    concurrency: 'concurrent'};
  const constant = SERIES_AXES.filter((a) => !varying.includes(a) && points.length && points[0][a] != null &&
    points[0][a] !== '' && DEFAULTS[a] !== points[0][a]);
  // Labels name only what differs between lines; the constant axes go into the chart's subtitle.
  function labelOf(obj, axes) {
    const parts = axes.filter((a) => obj[a] != null && obj[a] !== '').map((a) => AXIS_LABEL[a](obj[a]));
    return parts.length ? parts.join(' ') : [obj.backend, obj.op, obj.algo].filter(Boolean).join(' ');
  }
  const seriesKey = (obj) => SERIES_AXES.map((a) => valueKey(obj[a])).join('|');
  const seriesLabel = (p) => labelOf(p, varying);
  // For charts drawn at one size (or one panel per size): the label without the size.
  const noSize = varying.filter((a) => a !== 'bytes');
  const labelNoSize = (p) => labelOf(p, noSize);
  // A fit names every axis but groups; an axis it leaves out matches any value.
  const sameSeries = (fit, p) => SERIES_AXES.every((a) => !(a in fit) || valueKey(fit[a]) === valueKey(p[a]));
  // Sizes have their own entry in the subtitle.
  const constantText = constant.filter((a) => a !== 'bytes').map((a) => AXIS_LABEL[a](points[0][a])).join(', ');
  const groupCounts = uniq(points.map((p) => p.groups).filter(isNum)).sort((a, b) => a - b);
  const sizes = uniq(points.map((p) => p.bytes).filter(isNum)).sort((a, b) => a - b);
  const p50 = (p) => get(p, 'time_us.p50');
  const loopCost = (p) => get(p, 'time_us.mean');

  // ---------- verdict ----------
  // Every A/B measured for a finding, with the cut and its 95% interval: the reader sees what the status rests
  // on, including the pairs that were inconclusive or ruled the cause out. Older files list only ab_points.
  const pct = (v) => (isNum(v) ? Math.round(100 * v) + '%' : 'n/a');
  function abText(a) {
    const ci = Array.isArray(a.cut_ci95) && a.cut_ci95.length === 2 ? ' (95% interval ' + pct(a.cut_ci95[0]) +
      ' to ' + pct(a.cut_ci95[1]) + ')' : '';
    const verdict = a.supports_cause ? 'confirms ' + a.supports_cause + ' instead' :
      a.outcome === 'rules out' ? 'rules it out' : a.outcome === 'supports' ? 'supports it' : 'inconclusive';
    const pair = a.a_side ? a.a_side + ' to ' + (a.partner || a.factor) : (a.partner || a.factor || 'A/B');
    return pair + (isNum(a.g_lo) && isNum(a.g_hi) ? ' over G=' + a.g_lo + '..' + a.g_hi : '') +
      ': growth ' + fmtTime(a.growth_a_us) + ' → ' + fmtTime(a.growth_b_us) + ', cut ' + pct(a.cut) + ci +
      (isNum(a.pairs) ? (a.pairs > 0 ? ' from ' + a.pairs + ' interleaved rounds' : ' in the sweep\'s order') : '') +
      ', ' + verdict + (a.note ? ' (' + a.note + ')' : '');
  }
  function abDetail(f, status) {
    if (Array.isArray(f.ab) && f.ab.length) {
      return el('span', {class: 'detail ab'}, 'A/B in this sweep: ' + f.ab.map(abText).join('; ') + '.');
    }
    if (status === 'confirmed' && Array.isArray(f.ab_points) && f.ab_points.length) {
      return el('span', {class: 'detail'}, 'Confirmed by the A/B points ' + f.ab_points.slice(0, 3).join(', ') +
        (f.ab_points.length > 3 ? ' …' : '') + ' in this sweep' +
        (isNum(f.growth_cut) ? ' (cut ' + pct(f.growth_cut) + ')' : '') + '.');
    }
    return null;
  }

  function evidenceText(e) {
    const unit = !e.unit || e.unit === 'ratio' ? '' : e.unit === 'x' ? '×' : e.unit === '%' ? ' %' : ' ' + e.unit;
    return (e.label || '') + ' ' + fmtNum(e.value) + unit;
  }
  function fitCurve(fit) {
    const g = Array.isArray(fit.groups) ? fit.groups : [];
    const y = Array.isArray(fit.p50_us) ? fit.p50_us : [];
    if (Array.isArray(fit.predicted_us) && fit.predicted_us.length === g.length) return fit.predicted_us;
    // lib/diagnose writes the chosen model's fitted values at the first and the last G (level_before_us,
    // level_after_us) and, for step and saturation, the change point: enough to draw each model's shape.
    const lo = fit.level_before_us, hi = fit.level_after_us, cp = fit.change_point;
    if (isNum(lo) && isNum(hi) && g.length >= 2 && (lo > 0 || hi > 0)) {
      const g0 = g[0], g1 = g[g.length - 1];
      const lerp = (x, x0, x1) => (x1 > x0 ? lo + (hi - lo) * (x - x0) / (x1 - x0) : hi);
      if (fit.model === 'flat') return g.map(() => lo);
      if (fit.model === 'linear') return g.map((x) => lerp(x, g0, g1));
      if (fit.model === 'step' && isNum(cp)) return g.map((x) => (x < cp ? lo : hi));
      if (fit.model === 'saturation' && isNum(cp)) return g.map((x) => (x >= cp ? hi : lerp(x, g0, cp)));
    }
    const mean = (xs) => xs.reduce((s, v) => s + v, 0) / Math.max(1, xs.length);
    if (fit.model === 'flat' && y.length === g.length) return g.map(() => mean(y));
    if (fit.model === 'step' && isNum(fit.change_point) && y.length === g.length) {
      const lo = mean(y.filter((_, i) => g[i] < fit.change_point));
      const hi = mean(y.filter((_, i) => g[i] >= fit.change_point));
      return g.map((x) => (x < fit.change_point ? lo : hi));
    }
    if (isNum(fit.slope_us_per_group) && isNum(fit.intercept_us)) {
      return g.map((x) => fit.intercept_us + fit.slope_us_per_group * x);
    }
    return null;
  }
  function modelText(fit) {
    if (!fit) return '';
    if (fit.model === 'step' && isNum(fit.change_point)) return 'step at G=' + fit.change_point;
    if (fit.model === 'saturation' && isNum(fit.change_point)) return 'saturation from G=' + fit.change_point;
    return fit.model || 'least-squares line';
  }
  // The series whose time grows most between its smallest and largest group count.
  function largestGrowth() {
    let best = null;
    const bySeries = new Map();
    for (const p of points) {
      if (!isNum(loopCost(p)) || !isNum(p.groups)) continue;
      const k = seriesKey(p);
      if (!bySeries.has(k)) bySeries.set(k, []);
      bySeries.get(k).push(p);
    }
    for (const ps of bySeries.values()) {
      if (ps.length < 2) continue;
      ps.sort((a, b) => a.groups - b.groups);
      const first = ps[0], last = ps[ps.length - 1];
      const ratio = loopCost(last) / loopCost(first);
      if (!best || ratio > best.ratio) {
        best = {ratio, first, last, fit: fits.find((f) => sameSeries(f, first))};
      }
    }
    return best;
  }
  function renderVerdict() {
    const box = document.getElementById('verdict');
    const sub = document.getElementById('subtitle');
    const tool = R.tool || {};
    sub.textContent = visible([
      points.length + (points.length === 1 ? ' point' : ' points'), groupCounts.length ? 'G = ' + groupCounts.join(', ') : null,
      sizes.length ? 'sizes ' + sizes.map(fmtBytes).join(', ') : null, constantText || null,
      R.started_at ? 'started ' + R.started_at : null,
      tool.version ? (tool.name || 'commbench') + ' ' + tool.version + (tool.commit ? ' (' + tool.commit + ')' : '') : null,
    ].filter(Boolean).join(' · '));

    if (R.status === 'partial') {
      box.appendChild(el('p', {class: 'banner'}, 'Partial result: ' + (R.failure || 'the sweep stopped early') +
        '. Charts show the points that completed.'));
    }
    const wrong = points.filter((p) => p.correct === false);
    if (wrong.length) {
      box.appendChild(el('p', {class: 'banner'}, wrong.length + ' point(s) produced wrong values (e.g. ' +
        wrong[0].id + (Array.isArray(wrong[0].errors) && wrong[0].errors.length ? ': ' + wrong[0].errors[0] : '') +
        '); their timings are not trustworthy.'));
    }

    const g = largestGrowth();
    let headline;
    const growthText = g ? labelOf(g.first, varying.length ? varying : ['backend', 'op', 'algo', 'bytes']) + ': ' +
      fmtTime(loopCost(g.first)) + ' per op at G=' + g.first.groups + ' → ' + fmtTime(loopCost(g.last)) + ' at G=' + g.last.groups +
      ' (' + g.ratio.toFixed(1) + '×' + (g.fit && isNum(g.fit.slope_us_per_group) ?
        ', ' + (g.fit.slope_us_per_group >= 0 ? '+' : '') + fmtTime(g.fit.slope_us_per_group) + ' per added group' : '') +
      (g.fit && g.fit.model ? ', model: ' + modelText(g.fit) : '') + ')' : '';
    if (R.verdict === 'growth') {
      headline = 'Time per operation grows with the group count. Largest growth: ' + growthText + '.';
    } else if (R.verdict === 'no growth') {
      headline = 'No growth with the group count' + (g ? ': the largest change is ' + growthText : '') + '.' +
        (Array.isArray(R.caveats) ? R.caveats.map((c) => ' ' + c).join('') : '');
    } else if (R.verdict === 'not a line') {
      headline = 'No steady growth with the group count, but not a flat line either.' +
        (Array.isArray(R.caveats) ? R.caveats.map((c) => ' ' + c).join('') : '');
    } else if (R.verdict === 'insufficient data') {
      headline = 'Insufficient data for a verdict on growth' + (g ? '; the largest change measured: ' + growthText : '') + '.';
    } else {
      headline = g ? 'Largest change with the group count: ' + growthText + '.' :
        points.length + ' point(s) measured; no group-count axis to judge growth.';
    }
    box.appendChild(el('p', {class: 'headline', id: 'headline'}, headline));

    if (findings.length) {
      findings.sort((a, b) => (b.score || 0) - (a.score || 0));
      const list = el('ol', {class: 'findings', id: 'findings'});
      for (const f of findings) {
        const status = f.status === 'confirmed' ? 'confirmed' : 'suspected';
        // The first few numbers inline; the rest one click away, so a finding stays a sentence.
        const items = (Array.isArray(f.evidence) ? f.evidence : []).map(evidenceText);
        const evidence = items.slice(0, 5).join('; ');
        const more = items.length > 5 ? el('details', {class: 'more'}, el('summary', {}, '+' + (items.length - 5) + ' more numbers'),
          items.slice(5).join('; ') + '.') : null;
        const item = el('li', {class: 'finding'},
          el('span', {class: 'badge ' + status}, status), ' ',
          el('span', {class: 'cause'}, f.cause || f.rule || 'finding'), ': ',
          f.summary || '',
          evidence ? el('span', {class: 'detail'}, 'Evidence: ' + evidence + (more ? '; ' : '.'), more) : null,
          f.fix ? el('span', {class: 'detail'}, 'Fix: ' + f.fix) : null,
          abDetail(f, status),
          f.confirm_command ? el('span', {class: 'detail'}, 'Confirm with: ', el('code', {}, f.confirm_command)) : null);
        list.appendChild(item);
      }
      box.appendChild(list);
    } else if (R.verdict === 'growth') {
      box.appendChild(el('p', {class: 'muted'}, 'No rule matched the growth; the charts below show where it is.'));
    }
    if (Array.isArray(R.ruled_out) && R.ruled_out.length) {
      box.appendChild(el('p', {class: 'muted', id: 'ruled-out'}, 'Ruled out by an A/B in this sweep: ' +
        R.ruled_out.map((f) => (f.cause || f.rule) + (f.summary ? ' (' + f.summary + ')' : '')).join('; ') + '.'));
    }
    const noise = R.noise_floor;
    if (noise && noise.replicate_pairs > 0 && Array.isArray(noise.by_bytes)) {
      const pct1 = (v) => (isNum(v) ? (100 * v).toFixed(1) + '%' : 'n/a');
      box.appendChild(el('p', {class: 'muted', id: 'noise-floor'}, 'Point noise: points that measured one ' +
        'configuration twice differed by ' + noise.by_bytes.map((s) => pct1(s.relative_sd) + ' at ' + fmtBytes(s.bytes) +
        ' (' + s.pairs + (s.pairs === 1 ? ' pair)' : ' pairs)')).join(', ') + ' (one point, rms); each point\'s ' +
        'noise was taken as at least its size\'s, and ' + pct(noise.default) + '.'));
    }
    if (Array.isArray(R.skipped) && R.skipped.length) {
      box.appendChild(el('p', {class: 'muted'}, 'Skipped: ' + R.skipped.map((s) =>
        [s.backend, s.op].filter(Boolean).join(' ') + (s.reason ? ' (' + s.reason + ')' : '')).join('; ') + '.'));
    }
  }

  // ---------- charts ----------
  const WIDTH = 420, HEIGHT = 260;
  // Ten distinct colours are easier to tell apart; twenty when a chart has more lines than that.
  const colorFor = (rows) => ({scheme: uniq(rows.map((r) => r.series)).length > 10 ? 'category20' : 'tableau10'});
  const groupAxis = {title: 'groups (G)', tickMinStep: 1, format: 'd'};
  // Ticks at the measured sizes (every other one when there are many), labelled in binary units like the flags.
  const BYTES_AXIS = {
    values: sizes.filter((_, i) => sizes.length <= 10 || i % Math.ceil(sizes.length / 10) === 0),
    labelExpr: "datum.value >= 1073741824 ? format(datum.value / 1073741824, '.3~g') + ' GiB' : " +
      "datum.value >= 1048576 ? format(datum.value / 1048576, '.3~g') + ' MiB' : " +
      "datum.value >= 1024 ? format(datum.value / 1024, '.3~g') + ' KiB' : datum.value + ' B'",
    labelOverlap: true,
  };

  // Registers a chart box (in #charts unless `parent` is given); `build` returns {spec, note} or {skip: 'reason'}.
  const chartsBox = () => document.getElementById('charts');
  const addChart = chartAdder(state, 'commbench report', chartsBox);

  // 1. Time per op vs group count, with the fitted model of each series.
  function timeVsGroups() {
    if (groupCounts.length < 2) return {skip: 'the sweep has one group count (' + (groupCounts[0] || '?') + '), so there is no growth to draw; see time vs size.'};
    const facet = sizes.length > 1 && varying.includes('bytes');
    const label = facet ? labelNoSize : seriesLabel;
    // The y value is the loop's cost per op (time_us.mean), the statistic the growth fits use.
    const rows = points.filter((p) => isNum(p.groups) && isNum(loopCost(p))).map((p) => ({
      series: label(p), size: fmtBytes(p.bytes), bytes: p.bytes, groups: p.groups, world: p.world,
      loop_us: loopCost(p), p50_us: p50(p), p95_us: get(p, 'time_us.p95'), p99_us: get(p, 'time_us.p99'),
      rank_mean_p50_us: get(p, 'time_us_rank_mean.p50'), cv: get(p, 'time_us.cv'), n: get(p, 'time_us.n'), id: p.id,
    }));
    const model = [];
    for (const f of fits) {
      const curve = fitCurve(f);
      if (!curve) continue;
      f.groups.forEach((gv, i) => model.push({
        series: label(f), size: fmtBytes(f.bytes), groups: gv, model_us: curve[i], model: modelText(f),
        slope_us_per_group: f.slope_us_per_group, r2: f.r2,
      }));
    }
    const series = uniq(rows.map((r) => r.series));
    const yScale = scaleFor(rows.map((r) => r.loop_us));
    if (yScale.type === 'log') {
      for (let i = model.length - 1; i >= 0; i--) if (!(model[i].model_us > 0)) model.splice(i, 1);
    }
    if (!series.some((s) => uniq(rows.filter((r) => r.series === s).map((r) => r.groups)).length > 1)) {
      return {skip: 'no configuration was measured at two or more group counts.'};
    }
    const colorField = {field: 'series', type: 'nominal', title: 'configuration', scale: colorFor(rows)};
    const y = {field: 'loop_us', type: 'quantitative', title: 'loop cost per op, mean (µs)', scale: yScale};
    const layers = [
      {
        data: {values: rows},
        mark: {type: 'line', point: {filled: true, size: 45}},
        encoding: {
          x: {field: 'groups', type: 'quantitative', axis: groupAxis, scale: {zero: false, nice: false}},
          y, color: colorField,
          tooltip: [
            {field: 'series', title: 'configuration'}, {field: 'groups', title: 'G'}, {field: 'world', title: 'ranks'},
            {field: 'loop_us', title: 'loop cost per op, mean (µs)', format: '.4~g'},
            {field: 'p50_us', title: 'p50 (µs)', format: '.4~g'}, {field: 'p95_us', title: 'p95 (µs)', format: '.4~g'},
            {field: 'p99_us', title: 'p99 (µs)', format: '.4~g'},
            {field: 'rank_mean_p50_us', title: 'p50, mean across ranks (µs)', format: '.4~g'},
            {field: 'cv', title: 'CV', format: '.3~g'}, {field: 'n', title: 'iterations'}, {field: 'id', title: 'point'},
          ],
        },
      },
    ];
    if (model.length) {
      // Drawn first so that the measured points stay on top (and under the mouse).
      layers.unshift({
        data: {values: model},
        mark: {type: 'line', strokeDash: [5, 4], strokeWidth: 1.5, opacity: 0.8},
        encoding: {
          x: {field: 'groups', type: 'quantitative'},
          y: {field: 'model_us', type: 'quantitative'},
          color: colorField,
          tooltip: [
            {field: 'series', title: 'configuration'}, {field: 'model', title: 'fitted model'},
            {field: 'groups', title: 'G'}, {field: 'model_us', title: 'model (µs)', format: '.4~g'},
            {field: 'slope_us_per_group', title: 'slope (µs per group)', format: '.4~g'},
            {field: 'r2', title: 'R²', format: '.3f'},
          ],
        },
      });
    }
    const note = (model.length ? 'Dashed: the fitted model of each series (' + uniq(model.map((m) => m.model)).join(', ') + ').' :
      'No fit in the result file.') + (facet ? ' One panel per message size.' : '');
    if (facet) {
      // A facet needs one data source: the layers' rows carry `size` and are unioned by the facet.
      const all = rows.map((r) => Object.assign({kind: 'measured'}, r)).concat(model.map((m) => Object.assign({kind: 'model'}, m)));
      layers.forEach((l, i) => {  // the measured layer is the last one
        delete l.data;
        l.transform = [{filter: {field: 'kind', equal: i === layers.length - 1 ? 'measured' : 'model'}}];
      });
      return {
        rows: rows.length, note,
        spec: {
          data: {values: all},
          facet: {field: 'size', type: 'ordinal', title: 'message size', sort: sizes.map(fmtBytes)},
          columns: Math.min(sizes.length, 3),
          spec: {width: 250, height: 200, layer: layers},
          resolve: {scale: {y: 'independent'}},
        },
      };
    }
    return {rows: rows.length, note, spec: {width: WIDTH + 200, height: HEIGHT + 40, layer: layers}};
  }

  // 2. Time and bus bandwidth vs message size, one line per backend/algorithm (at the smallest and largest G).
  // Time is the loop cost per op (time_us.mean), as in time vs groups; the bandwidths are computed from it.
  function timeVsSize() {
    if (sizes.length < 2) return {skip: 'the sweep has one message size (' + fmtBytes(sizes[0]) + ').'};
    const gs = uniq([groupCounts[0], groupCounts[groupCounts.length - 1]]).filter(isNum);
    const axes = varying.filter((a) => a !== 'bytes');
    const rows = points.filter((p) => isNum(p.bytes) && isNum(loopCost(p)) && (!gs.length || gs.includes(p.groups))).map((p) => ({
      series: labelOf(p, axes.length ? axes : ['backend', 'op', 'algo']), G: 'G=' + p.groups, bytes: p.bytes,
      size: fmtBytes(p.bytes), loop_us: loopCost(p), p50_us: p50(p), busbw_gbps: p.busbw_gbps, algbw_gbps: p.algbw_gbps, id: p.id,
    }));
    if (!rows.length) return {skip: 'no point has both a size and a time.'};
    const bw = rows.filter((r) => isNum(r.busbw_gbps) && r.busbw_gbps > 0);
    const x = {field: 'bytes', type: 'quantitative', title: 'message size (per-rank buffer)', scale: {type: 'log'},
      axis: BYTES_AXIS};
    const color = {field: 'series', type: 'nominal', title: 'backend / algorithm', scale: colorFor(rows)};
    const dash = gs.length > 1 ? {field: 'G', type: 'nominal', title: 'groups', sort: gs.map((v) => 'G=' + v),
      // Vega-Lite paints a line+point legend's symbols as filled dots; a dash needs a visible stroke.
      legend: {symbolType: 'stroke', symbolStrokeWidth: 2, symbolSize: 300,
        encode: {symbols: {update: {stroke: {value: '#444'}, fill: {value: 'transparent'}}}}}} : undefined;
    const tooltip = [
      {field: 'series', title: 'configuration'}, {field: 'G', title: 'groups'}, {field: 'size', title: 'size'},
      {field: 'loop_us', title: 'loop cost per op, mean (µs)', format: '.4~g'}, {field: 'p50_us', title: 'p50 (µs)', format: '.4~g'},
      {field: 'algbw_gbps', title: 'algbw (GB/s)', format: '.4~g'}, {field: 'busbw_gbps', title: 'busbw (GB/s)', format: '.4~g'}, {field: 'id', title: 'point'},
    ];
    const view = (data, field, title, values) => ({
      width: WIDTH, height: HEIGHT, data: {values: data},
      mark: {type: 'line', point: {filled: true, size: 40}},
      encoding: {x, y: {field, type: 'quantitative', title, scale: scaleFor(values)}, color, strokeDash: dash, tooltip},
    });
    const latency = view(rows, 'loop_us', 'loop cost per op, mean (µs)', rows.map((r) => r.loop_us));
    const spec = bw.length ? {hconcat: [latency, view(bw, 'busbw_gbps', 'bus bandwidth per group (GB/s, decimal)', bw.map((r) => r.busbw_gbps))]} : latency;
    return {rows: rows.length, spec, note: gs.length > 1 ? 'Solid/dashed: G=' + gs[0] + ' and G=' + gs[1] + '.' : ''};
  }

  // 3. Aggregate bus bandwidth of all concurrent groups vs group count, against the host's measured peaks.
  function aggregateBandwidth() {
    const xGroups = groupCounts.length >= 2;
    if (!xGroups) return {skip: 'the sweep has one group count, so there is no aggregate to compare across G.'};
    // Bandwidth limits show at large messages: with several sizes, draw the largest one.
    const withBw = points.filter((p) => isNum(p.groups) && isNum(p.aggregate_busbw_gbps) && p.aggregate_busbw_gbps > 0);
    const maxSize = Math.max(...withBw.map((p) => (isNum(p.bytes) ? p.bytes : 0)));
    const oneSize = uniq(withBw.map((p) => p.bytes)).length > 1;
    const rows = withBw.filter((p) => !oneSize || p.bytes === maxSize).map((p) => ({
      series: oneSize ? labelNoSize(p) : seriesLabel(p), size: fmtBytes(p.bytes), groups: p.groups, agg_busbw_gbps: p.aggregate_busbw_gbps,
      agg_algbw_gbps: p.aggregate_algbw_gbps, busbw_gbps: p.busbw_gbps, id: p.id,
      // Issue 52: the groups' bus bytes over the time any of them was inside an op (absent in older files).
      agg_busy_busbw_gbps: get(p, 'busy_time.aggregate_busbw_gbps'),
    }));
    if (!rows.length) return {skip: 'no point reports an aggregate bandwidth.'};
    const peaks = env.peaks || {};
    const peakRows = [['memcpy_gbps', 'memory copy peak'], ['tcp_loopback_gbps', 'TCP loopback peak']]
      .filter(([k]) => isNum(peaks[k]) && peaks[k] > 0).map(([k, name]) => ({peak: name, gbps: peaks[k]}));
    rows.forEach((r) => {
      for (const pk of peakRows) r[pk.peak === 'memory copy peak' ? 'frac_memcpy' : 'frac_tcp'] = r.agg_busbw_gbps / pk.gbps;
    });
    // A linear bandwidth axis starts at zero: a zoomed axis would make a flat aggregate look like a collapse.
    const yScale = scaleFor(rows.map((r) => r.agg_busbw_gbps).concat(peakRows.map((p) => p.gbps)));
    if (yScale.type === 'linear') yScale.zero = true;
    const y = {field: 'agg_busbw_gbps', type: 'quantitative', title: 'aggregate bus bandwidth, all groups (GB/s)',
      scale: yScale};
    const layers = [{
      data: {values: rows},
      mark: {type: 'line', point: {filled: true, size: 45}},
      encoding: {
        x: {field: 'groups', type: 'quantitative', axis: groupAxis, scale: {zero: false, nice: false}},
        y, color: {field: 'series', type: 'nominal', title: 'configuration', scale: colorFor(rows)},
        tooltip: [
          {field: 'series', title: 'configuration'}, {field: 'size', title: 'size'}, {field: 'groups', title: 'G'},
          {field: 'agg_busbw_gbps', title: 'aggregate busbw, plain sum (GB/s)', format: '.4~g'},
          {field: 'agg_busy_busbw_gbps', title: 'aggregate busbw over busy time (GB/s)', format: '.4~g'},
          {field: 'agg_algbw_gbps', title: 'aggregate algbw (GB/s)', format: '.4~g'},
          {field: 'busbw_gbps', title: 'busbw per group (GB/s)', format: '.4~g'},
          {field: 'frac_memcpy', title: 'fraction of memcpy peak', format: '.2%'},
          {field: 'frac_tcp', title: 'fraction of TCP peak', format: '.2%'},
          {field: 'id', title: 'point'},
        ],
      },
    }];
    if (peakRows.length) {
      layers.push({
        data: {values: peakRows},
        mark: {type: 'rule', color: '#555', strokeDash: [2, 3], strokeWidth: 1.5},
        encoding: {y: {field: 'gbps', type: 'quantitative'},
          tooltip: [{field: 'peak', title: 'measured peak'}, {field: 'gbps', title: 'GB/s', format: '.4~g'}]},
      }, {
        data: {values: peakRows},
        mark: {type: 'text', align: 'left', dx: 4, dy: -7, color: '#444', fontSize: 11},
        encoding: {x: {datum: groupCounts[0], type: 'quantitative'}, y: {field: 'gbps', type: 'quantitative'},
          text: {field: 'peak'}},
      });
    }
    return {rows: rows.length, spec: {width: WIDTH + 200, height: HEIGHT + 40, layer: layers},
      note: (oneSize ? 'At the largest size, ' + fmtBytes(maxSize) + '. ' : '') + (peakRows.length ? 'Dotted: the host\'s measured peaks (' + peakRows.map((p) => p.peak + ' ' + fmtNum(p.gbps) + ' GB/s').join(', ') + '). ' +
        'Shared bandwidth shows as an aggregate flat near a peak while per-group bandwidth falls as 1/G.' :
        'No peak was measured on this host (run `commbench env` to measure it).')};
  }

  // 4. Per-rank heat map: each rank's p50 relative to the point's median rank, so a straggler stands out.
  function rankHeatMap() {
    const MAX_COLUMNS = 48;
    let cols = [];
    for (const p of points) {
      const ranks = (Array.isArray(p.per_rank) ? p.per_rank : []).filter((r) => isNum(get(r, 'time_us.p50')));
      if (!ranks.length) continue;
      const sorted = ranks.map((r) => r.time_us.p50).sort((a, b) => a - b);
      const median = sorted[Math.floor((sorted.length - 1) / 2)];
      const rel = (r) => (median > 0 ? r.time_us.p50 / median : 1);
      cols.push({p, ranks, rel, spread: Math.max(...ranks.map(rel))});
    }
    if (!cols.length) return {skip: 'the result has no per-rank timings.'};
    // Too many points for one row of cells: keep the largest group count (every rank present), then the points
    // whose slowest rank stands out most.
    let selection = '';
    const total = cols.length;
    if (cols.length > MAX_COLUMNS) {
      const gMax = Math.max(...cols.map((c) => c.p.groups));
      cols = cols.filter((c) => c.p.groups === gMax);
      selection = 'Showing G=' + gMax;
      if (cols.length > MAX_COLUMNS) {
        cols = cols.sort((a, b) => b.spread - a.spread).slice(0, MAX_COLUMNS);
        selection += ', the ' + MAX_COLUMNS + ' points whose slowest rank stands out most';
      }
      selection += ' (' + cols.length + ' of ' + total + ' points). ';
    }
    cols.sort((a, b) => seriesKey(a.p).localeCompare(seriesKey(b.p)) || a.p.groups - b.p.groups);
    const rows = [];
    for (const {p, ranks, rel} of cols) {
      const label = (varying.length ? seriesLabel(p) + ' · ' : '') + 'G=' + p.groups;
      for (const r of ranks) {
        rows.push({point: label, id: p.id, rank: r.rank, group: r.group, pid: r.pid, p50_us: r.time_us.p50,
          p99_us: get(r, 'time_us.p99'), rel: rel(r)});
      }
    }
    const pointsShown = uniq(rows.map((r) => r.point));
    const maxRank = Math.max(...rows.map((r) => r.rank));
    const relMax = Math.max(1.5, ...rows.map((r) => r.rel));
    const relMin = Math.min(0.8, ...rows.map((r) => r.rel));
    return {
      rows: rows.length,
      note: selection + 'Colour: the rank\'s p50 divided by the median rank of the same point (1 = typical). Ranks wait for their ' +
        'group, so a straggler usually colours its whole group.',
      spec: {
        width: Math.min(1060, Math.max(260, pointsShown.length * 24)),
        height: Math.min(420, Math.max(90, (maxRank + 1) * 14)),
        data: {values: rows},
        mark: {type: 'rect', stroke: '#fff', strokeWidth: 0.5},
        encoding: {
          x: {field: 'point', type: 'ordinal', sort: pointsShown, title: 'point (configuration · groups)',
            axis: {labelAngle: -50, labelLimit: 160, labelOverlap: 'greedy'}},
          y: {field: 'rank', type: 'ordinal', title: 'rank', sort: 'ascending', axis: {labelOverlap: 'greedy'}},
          // Diverging at 1; a log scale when a rank is several times slower, so 1.5× still shows next to 40×.
          color: {field: 'rel', type: 'quantitative', title: '× median rank',
            scale: {type: relMax > 4 && relMin > 0 ? 'log' : 'linear', domain: [relMin, 1, relMax],
              range: ['#3b6fb6', '#f3f3f0', '#c0392b']}},
          tooltip: [
            {field: 'id', title: 'point'}, {field: 'rank', title: 'rank'}, {field: 'group', title: 'group'},
            {field: 'pid', title: 'pid'}, {field: 'p50_us', title: 'p50 (µs)', format: '.4~g'},
            {field: 'p99_us', title: 'p99 (µs)', format: '.4~g'}, {field: 'rel', title: '× median rank', format: '.3f'},
          ],
        },
      },
    };
  }

  // 5. CPU evidence: saturation ratio and involuntary context switches per iteration vs group count.
  function cpuEvidence() {
    const byGroups = groupCounts.length >= 2;
    const xField = byGroups ? 'groups' : 'bytes';
    if (!byGroups && sizes.length < 2) return {skip: 'one group count and one size: nothing to plot CPU figures against.'};
    // CPU overhead per operation shows best at small messages: with several sizes (and a groups axis), draw the
    // smallest one.
    const withCpu = points.filter((p) => p.cpu && (isNum(p.cpu.saturation) || isNum(p.cpu.invol_ctx_per_iter)));
    const minSize = Math.min(...withCpu.map((p) => (isNum(p.bytes) ? p.bytes : Infinity)));
    const oneSize = byGroups && uniq(withCpu.map((p) => p.bytes)).length > 1;
    const rows = withCpu.filter((p) => !oneSize || p.bytes === minSize).map((p) => ({
      series: oneSize || !byGroups ? labelNoSize(p) : seriesLabel(p), groups: p.groups, bytes: p.bytes, saturation: p.cpu.saturation,
      invol: p.cpu.invol_ctx_per_iter, vol: p.cpu.vol_ctx_per_iter, tpc: p.cpu.threads_per_core,
      cores: p.cpu.cores_available, cpu_s: p.cpu.cpu_s_total, id: p.id,
    }));
    if (!rows.length) return {skip: 'the result has no CPU counters.'};
    const x = byGroups ? {field: 'groups', type: 'quantitative', axis: groupAxis, scale: {zero: false, nice: false}} :
      {field: 'bytes', type: 'quantitative', title: 'message size (per-rank buffer)', scale: {type: 'log'}, axis: BYTES_AXIS};
    const color = {field: 'series', type: 'nominal', title: 'configuration', scale: colorFor(rows)};
    const tooltip = [
      {field: 'series', title: 'configuration'}, {field: xField, title: byGroups ? 'G' : 'bytes'},
      {field: 'saturation', title: 'CPU saturation (CPU s / (cores × wall s))', format: '.3f'},
      {field: 'tpc', title: 'rank threads per core', format: '.3~g'},
      {field: 'invol', title: 'involuntary ctx switches / iter', format: '.4~g'},
      {field: 'vol', title: 'voluntary ctx switches / iter', format: '.4~g'},
      {field: 'cores', title: 'cores available'}, {field: 'id', title: 'point'},
    ];
    const sat = rows.filter((r) => isNum(r.saturation));
    const ctx = rows.filter((r) => isNum(r.invol) && r.invol > 0);
    const views = [];
    // Where rank threads first outnumber cores: growth that starts there points at oversubscription.
    const over = byGroups ? rows.filter((r) => isNum(r.tpc) && r.tpc > 1).map((r) => r.groups) : [];
    const overLayer = over.length ? [{
      data: {values: [{groups: Math.min(...over)}]},
      mark: {type: 'rule', color: '#b3261e', strokeDash: [4, 3]},
      encoding: {x: {field: 'groups', type: 'quantitative'}, tooltip: [{field: 'groups', title: 'ranks exceed cores from G'}]},
    }] : [];
    if (sat.length) {
      views.push({
        width: WIDTH - 40, height: HEIGHT,
        layer: [{
          data: {values: sat},
          mark: {type: 'line', point: {filled: true, size: 40}},
          encoding: {x, y: {field: 'saturation', type: 'quantitative', title: 'CPU saturation (CPU s ÷ (cores × wall s))',
            scale: {domain: [0, Math.max(1.1, ...sat.map((r) => r.saturation))]}}, color, tooltip},
        }, {
          data: {values: [{y: 1}]}, mark: {type: 'rule', color: '#555', strokeDash: [2, 3]},
          encoding: {y: {field: 'y', type: 'quantitative'}},
        }].concat(overLayer),
      });
    }
    if (ctx.length) {
      views.push({
        width: WIDTH - 40, height: HEIGHT,
        layer: [{
          data: {values: ctx},
          mark: {type: 'line', point: {filled: true, size: 40}},
          encoding: {x, y: {field: 'invol', type: 'quantitative', title: 'involuntary context switches per iteration',
            scale: scaleFor(ctx.map((r) => r.invol))}, color, tooltip},
        }].concat(overLayer),
      });
    }
    if (!views.length) return {skip: 'the CPU counters are all zero or missing.'};
    return {rows: rows.length, spec: views.length > 1 ? {hconcat: views} : views[0],
      note: (oneSize ? 'At the smallest size, ' + fmtBytes(minSize) + '. ' : '') + 'Saturation near 1 (dotted) means every available core is busy; ' +
        (over.length ? 'the red line marks where rank threads first outnumber cores (G=' + Math.min(...over) + ').' :
          'rank threads never outnumber cores here.')};
  }

  // ---------- every point's numbers (exact values without hovering) ----------
  function renderPointsTable() {
    if (!points.length) return;
    const MAX_ROWS = 400;
    const cols = [
      ['point', (p) => p.id || ''], ['G', (p) => p.groups], ['ranks', (p) => p.world], ['size', (p) => fmtBytes(p.bytes)],
      ['p50', (p) => fmtTime(p50(p))], ['p99', (p) => fmtTime(get(p, 'time_us.p99'))],
      ['CV', (p) => fmtNum(get(p, 'time_us.cv'), 2)], ['busbw GB/s', (p) => fmtNum(p.busbw_gbps)],
      ['aggregate busbw GB/s (sum)', (p) => fmtNum(p.aggregate_busbw_gbps)],
      ['aggregate busbw GB/s (busy time)', (p) => fmtNum(get(p, 'busy_time.aggregate_busbw_gbps'))],
      // Issue 52: the collective's own time (least any rank spent inside it) and the ranks' arrival skew.
      ['transfer p50', (p) => optTime(get(p, 'arrival.transfer_us.p50'))],
      ['skew p50', (p) => optTime(get(p, 'arrival.skew_us.p50'))], ['skew p99', (p) => optTime(get(p, 'arrival.skew_us.p99'))],
      ['CPU saturation', (p) => fmtNum(get(p, 'cpu.saturation'), 2)],
      // What G groups cost to set up, in time and memory (issue 52): the slowest rank's set-up, the communicators'
      // resident memory per group (and device memory on GPUs).
      ['set-up', (p) => (p.per_rank && p.per_rank.length ? fmtTime(1e6 * Math.max(...p.per_rank.map((r) => r.setup_s || 0))) : '')],
      ['comm memory / group', (p) => (p.comm_memory ? fmtBytes(Math.round(p.comm_memory.rss_bytes_per_group)) : '')],
      ['device memory / group', (p) => (p.comm_memory && isNum(p.comm_memory.device_bytes_per_group) ? fmtBytes(Math.round(p.comm_memory.device_bytes_per_group)) : '')],
      ['correct', (p) => (p.correct === false ? 'NO' : p.correct === true ? 'yes' : '')],
    ];
    const table = el('table', {class: 'points'});
    table.appendChild(el('tr', {}, ...cols.map(([h]) => el('th', {}, h))));
    for (const p of points.slice(0, MAX_ROWS)) {
      table.appendChild(el('tr', {}, ...cols.map(([, f]) => {
        const v = f(p);
        return el('td', {}, v === undefined || v === null || v === 'undefined' ? '' : String(v));
      })));
    }
    const details = el('details', {id: 'points-table'}, el('summary', {}, (points.length === 1 ? 'The point' :
      'All ' + points.length + ' points') +
      (points.length > MAX_ROWS ? ' (first ' + MAX_ROWS + ' listed; the rest are in the embedded JSON)' : '')), table);
    if (points.length <= 12) details.open = true;
    chartsBox().appendChild(el('div', {class: 'chart'}, el('h2', {}, 'Points'), details));
  }

  // ---------- environment and command ----------
  function renderEnvironment() {
    const box = document.getElementById('environment');
    box.appendChild(el('h2', {}, 'Environment'));
    const gpu = env.gpu;
    const rows = [
      ['host', env.host], ['CPU', env.cpu_model],
      ['cores', isNum(env.cores_online) ? env.cores_online + (env.affinity ? ' online, affinity ' + env.affinity : ' online') +
        (isNum(env.cpu_quota) ? '; cgroup CPU quota ' + env.cpu_quota + ' CPU' + (env.cpu_quota > 1 ? 's' : '') : '') : null],
      ['memory', isNum(env.memory_bytes) ? (env.memory_bytes / 2 ** 30).toFixed(1) + ' GiB' : null], ['OS', env.os],
      ['Gloo', env.gloo_version],
      ['backends', env.backends && typeof env.backends === 'object' ? Object.entries(env.backends).map(([name, b]) =>
        name + (b && b.available === false ? ' unavailable' + (b.reason ? ' (' + b.reason + ')' : '') :
          (b && b.version ? ' (' + b.version + ')' : ''))).join('; ') : null],
      ['GPU', gpu ? [gpu.name, gpu.driver && 'driver ' + gpu.driver, gpu.cuda_runtime && 'CUDA ' + gpu.cuda_runtime,
        gpu.nccl && 'NCCL ' + gpu.nccl].filter(Boolean).join(', ') : (env.gpu_unavailable_reason ? 'none (' + env.gpu_unavailable_reason + ')' : 'none')],
      ['peaks', env.peaks ? Object.entries(env.peaks).map(([k, v]) => k.replace(/_gbps$/, '') + ' ' + fmtNum(v) + ' GB/s').join(', ') : 'not measured'],
      ['variables', env.variables && Object.keys(env.variables).length ?
        Object.entries(env.variables).map(([k, v]) => k + '=' + v).join(' ') : 'none set'],
      ['tool', R.tool ? [R.tool.name, R.tool.version, R.tool.commit].filter(Boolean).join(' ') : null],
      ['run', [R.started_at, isNum(R.duration_s) ? R.duration_s.toFixed(1) + ' s' : null, R.status].filter(Boolean).join(' · ')],
      ['time', R.wall && isNum(R.wall.timed_share) && R.wall.phases ? Math.round(100 * R.wall.timed_share) + ' % of the wall in timed loops (' + R.wall.timed_s.toFixed(1) + ' s of ' + R.wall.wall_s.toFixed(1) + ' s); ' + Object.entries(R.wall.phases).filter(([k, v]) => k !== 'timed' && v >= 0.1).sort((a, b) => b[1] - a[1]).map(([k, v]) => k.replace('_', ' ') + ' ' + v.toFixed(1) + ' s').join(', ') : null],
      ['data', R.report && R.report.note ? R.report.note : null],
    ].filter(([, v]) => v !== null && v !== undefined && v !== '');
    const table = el('table', {class: 'env'});
    for (const [k, v] of rows) table.appendChild(el('tr', {}, el('th', {}, k), el('td', {}, String(v))));
    box.appendChild(table);

    box.appendChild(el('h2', {}, 'Command'));
    const command = typeof R.command === 'string' && R.command ? R.command : '(not recorded)';
    const pre = el('pre', {id: 'command'}, command);
    const button = el('button', {type: 'button', class: 'copy', id: 'copy-command', title: 'Copy the command line'}, 'Copy');
    button.addEventListener('click', () => copyText(command, button));
    box.appendChild(el('div', {class: 'command'}, pre, button));
  }
  function copyText(text, button) {
    const done = (ok) => {
      button.textContent = ok ? 'Copied' : 'Select and copy';
      setTimeout(() => { button.textContent = 'Copy'; }, 1500);
    };
    // The async clipboard needs a secure context; file:// pages usually are, but fall back to a selection.
    const fallback = () => {
      const area = el('textarea', {readonly: '', style: 'position:fixed;left:-9999px'});
      area.value = text;
      document.body.appendChild(area);
      area.select();
      let ok = false;
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      area.remove();
      done(ok);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(() => done(true), fallback);
    } else {
      fallback();
    }
  }

  // 6. Traffic (traffic.js): each rank's measured bytes per op against the model, by size.
  function trafficChart() {
    if (typeof window.commbenchTraffic !== 'function') throw new Error('the page lacks traffic.js');
    return window.commbenchTraffic(points, {fmtBytes, labelOf, varying, WIDTH, HEIGHT, BYTES_AXIS, colorFor, scaleFor});
  }

  // The acceptance section (acceptance.js) goes on top, only for `commbench accept` results.
  function renderAcceptance() {
    if (!R.acceptance || typeof R.acceptance !== 'object') return [];
    if (typeof window.commbenchAcceptance !== 'function') {
      state.errors.push('the result has an acceptance block but the page lacks acceptance.js');
      return [];
    }
    try {
      return window.commbenchAcceptance(R.acceptance, {el, isNum, fmtNum, fmtBytes, addChart});
    } catch (e) {
      state.errors.push('acceptance: ' + e.message);
      console.error('commbench report: acceptance', e);
      return [];
    }
  }

  // ---------- main ----------
  const started = performance.now();
  const acceptanceDrawn = renderAcceptance();
  renderVerdict();
  const drawn = acceptanceDrawn.concat([
    addChart('chart-time-groups', '1. Time per operation vs group count',
      'Does the cost of one collective grow when more groups run at the same time? Time per op is the slowest rank\'s, per iteration.', timeVsGroups),
    addChart('chart-time-size', '2. Time and bus bandwidth vs message size',
      'Latency-bound at small sizes, bandwidth-bound at large ones; per backend and algorithm.', timeVsSize),
    addChart('chart-aggregate-bw', '3. Aggregate bandwidth vs group count',
      'All concurrent groups together, against what this host can move at most.', aggregateBandwidth),
    addChart('chart-rank-heatmap', '4. Per-rank time (straggler map)',
      'One cell per rank and point.', rankHeatMap),
    addChart('chart-cpu', '5. CPU evidence',
      'Oversubscription shows as saturation reaching 1 and involuntary context switches climbing with G.', cpuEvidence),
    addChart('chart-traffic', '6. Bytes per rank per operation vs message size',
      'What each rank sent per operation, measured, beside its algorithm\'s model.', trafficChart),
  ]);
  renderPointsTable();
  renderEnvironment();
  Promise.all(drawn).then(() => {
    state.renderMs = performance.now() - started;
    state.readyAtMs = performance.now();  // since navigation start: parse, libraries, data and every chart
    state.ready = true;
    document.body.setAttribute('data-ready', 'true');
  });
})();
