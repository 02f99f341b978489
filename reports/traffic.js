// commbench HTML report, the traffic chart (issue 34; docs/result-format.md, "Traffic"): bytes per rank per
// operation against message size, each rank's measured bytes as dots beside its algorithm's model as lines.
//
// report.js calls window.commbenchTraffic(points, lib) from its chart list; it returns what addChart's `build`
// returns: {spec, rows, note} or {skip: reason}. Measured is what crossed the rank's sockets (the kernel's TCP
// counters: payload plus the backend's framing, Gloo's 48-byte preambles) or, over shared memory, what the rank
// copied from its peers (received only, so those points plot received bytes against the received model).
(function () {
  'use strict';

  const num = (v) => typeof v === 'number' && isFinite(v);

  window.commbenchTraffic = function (points, lib) {
    const {fmtBytes, labelOf, varying, WIDTH, HEIGHT, BYTES_AXIS, colorFor, scaleFor} = lib;
    const withTraffic = points.filter((p) => num(p.bytes) && Array.isArray(p.per_rank) &&
      p.per_rank.some((r) => r && r.traffic && typeof r.traffic === 'object'));
    if (!withTraffic.length) {
      return {skip: 'no point carries per-rank traffic (a result written before traffic was recorded).'};
    }
    // Traffic per rank does not depend on how many groups run at once: one group count, the smallest.
    const g0 = Math.min(...withTraffic.map((p) => (num(p.groups) ? p.groups : Infinity)));
    const chosen = withTraffic.filter((p) => !num(g0) || p.groups === g0);
    const axes = varying.filter((a) => a !== 'bytes' && a !== 'groups');
    const measured = [], model = [];
    for (const p of chosen) {
      const series = labelOf(p, axes.length ? axes : ['backend', 'op', 'algo']);
      const models = [];
      for (const r of p.per_rank) {
        const t = r && r.traffic;
        if (!t || typeof t !== 'object') continue;
        // Shared memory counts received bytes only: that side is the one drawn.
        const side = num(t.sent_bytes_per_op) || !num(t.recv_bytes_per_op) ? 'sent' : 'received';
        const m = side === 'sent' ? t.model_sent_bytes_per_op : t.model_recv_bytes_per_op;
        const v = side === 'sent' ? t.sent_bytes_per_op : t.recv_bytes_per_op;
        if (num(m) && m > 0) models.push(m);
        if (!num(v) || v <= 0) continue;
        measured.push({
          series, bytes: p.bytes, size: fmtBytes(p.bytes), rank: r.rank, side, measured: v,
          model: num(m) && m > 0 ? m : null, ratio: num(m) && m > 0 ? v / m : null,
          framing: num(t.model_framing_bytes_per_op) ? t.model_framing_bytes_per_op : 0,
          source: t.source || 'model only', exact: t.model || 'n/a', id: p.id,
        });
      }
      if (!models.length) continue;
      // The busiest rank's model, and the least's where ranks differ (Gloo's binary blocks, native's hd).
      const hi = Math.max(...models), lo = Math.min(...models);
      const row = (which, v) => ({series, which, bytes: p.bytes, size: fmtBytes(p.bytes), model: v, id: p.id});
      model.push(row('model, busiest rank', hi));
      if (lo < hi) model.push(row('model, least rank', lo));
    }
    if (!measured.length && !model.length) return {skip: 'no rank has a measured or modelled byte count.'};
    const all = measured.map((r) => r.measured).concat(model.map((r) => r.model));
    const x = {field: 'bytes', type: 'quantitative', title: 'message size (nccl-tests size)', scale: {type: 'log'},
      axis: BYTES_AXIS};
    const y = {type: 'quantitative', title: 'bytes per rank per operation (decimal)', scale: scaleFor(all),
      axis: {format: '~s'}};
    const color = {field: 'series', type: 'nominal', title: 'backend / algorithm',
      scale: colorFor(measured.concat(model))};
    const layers = [];
    if (model.length) {
      layers.push({
        data: {values: model},
        mark: {type: 'line', strokeWidth: 1.5, point: {shape: 'diamond', size: 30, filled: false}},
        encoding: {
          x, y: Object.assign({field: 'model'}, y), color, detail: {field: 'which'},
          strokeDash: {field: 'which', type: 'nominal', title: 'model',
            scale: {domain: ['model, busiest rank', 'model, least rank'], range: [[6, 3], [2, 2]]},
            legend: {symbolType: 'stroke', symbolStrokeWidth: 2, symbolSize: 300,
              encode: {symbols: {update: {stroke: {value: '#444'}, fill: {value: 'transparent'}}}}}},
          tooltip: [{field: 'series', title: 'configuration'}, {field: 'size', title: 'size'},
            {field: 'which', title: 'line'}, {field: 'model', title: 'model (B/op)', format: ',.0f'},
            {field: 'id', title: 'point'}],
        },
      });
    }
    if (measured.length) {
      layers.push({
        data: {values: measured},
        mark: {type: 'point', filled: true, size: 45, opacity: 0.8},
        encoding: {
          x, y: Object.assign({field: 'measured'}, y), color,
          tooltip: [{field: 'series', title: 'configuration'}, {field: 'size', title: 'size'},
            {field: 'rank', title: 'rank'}, {field: 'side', title: 'bytes'},
            {field: 'measured', title: 'measured (B/op)', format: ',.0f'},
            {field: 'model', title: 'model payload (B/op)', format: ',.0f'},
            {field: 'ratio', title: 'measured / model', format: '.4f'},
            {field: 'framing', title: 'framing in the model (B/op)', format: ',.0f'},
            {field: 'source', title: 'measured by'}, {field: 'exact', title: 'model'}, {field: 'id', title: 'point'}],
        },
      });
    }
    // The ratio panel: what a log axis of bytes hides (framing at small sizes, a rank off its model).
    const ratios = measured.filter((r) => num(r.ratio));
    const ratioView = ratios.length ? {
      width: WIDTH, height: HEIGHT,
      layer: [
        {data: {values: ratios}, mark: {type: 'point', filled: true, size: 45, opacity: 0.8},
          encoding: {x, y: {field: 'ratio', type: 'quantitative', title: 'measured / model', scale: {zero: false}},
            color, tooltip: layers[layers.length - 1].encoding.tooltip}},
        {data: {values: [{one: 1}]}, mark: {type: 'rule', strokeDash: [4, 4], color: '#888'},
          encoding: {y: {field: 'one', type: 'quantitative'}}},
      ],
    } : null;
    const bytesView = {width: WIDTH, height: HEIGHT, layer: layers};
    const shm = measured.some((r) => r.side === 'received');
    const note = 'Dots: each rank, measured; lines: the model (payload; measured TCP bytes include the backend\'s ' +
      'framing, which shows at small sizes).' + (shm ? ' Shared-memory points plot received bytes (the only ' +
      'side counted there).' : '') + ' Right: each rank\'s measured over its model (1: dashed).' + (withTraffic.length > chosen.length ? ' At G=' + g0 + '.' : '');
    const spec = ratioView ? {hconcat: [bytesView, ratioView], resolve: {scale: {color: 'shared'}}} : bytesView;
    return {rows: measured.length + model.length, spec, note};
  };
})();
