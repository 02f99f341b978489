// commbench HTML report, the acceptance section (`commbench accept`): drawn on top of the page when the result has
// an `acceptance` block (lib/accept/outputs.cc, $defs/acceptance in reports/result.schema.json). Top to bottom: the
// verdict with what its exit code means, the ranked suspects with their evidence, the failed checks, one heat map
// per host-pair matrix, each host's verdict, the notes, and every check (collapsed).
//
// report.js calls window.commbenchAcceptance(block, lib) with its own helpers (el builds nodes with textContent
// only: host names and reasons come from the cluster and must never become markup) and gets back the promises of
// the charts it registered.
(function () {
  'use strict';

  const EXIT_MEANING = {
    0: 'exit 0: every check passed',
    1: 'exit 1: at least one check failed',
    3: 'exit 3: could not run or judge: pre-flight found ranks or hosts missing, so nothing was measured; or every failed check was timed while processes outside the run held a CPU (named in the checks)',
  };

  window.commbenchAcceptance = function (A, lib) {
    const {el, isNum, fmtNum, fmtBytes, addChart} = lib;
    const list = (v) => (Array.isArray(v) ? v.filter((x) => x && typeof x === 'object') : []);
    const text = (v) => (v === null || v === undefined ? '' : String(v));
    const checks = list(A.checks);
    const hosts = list(A.hosts);
    const suspects = list(A.suspects);
    const matrices = list(A.pair_matrices);

    const section = el('section', {id: 'acceptance', 'aria-label': 'Acceptance'});
    const main = document.querySelector('main');
    main.insertBefore(section, main.firstChild);
    document.querySelector('header h1').textContent = 'commbench acceptance report';
    document.title = 'commbench acceptance report';

    // ---------- the verdict ----------
    const failed = checks.filter((c) => c.passed !== true);
    const busy = A.exit_code === 3 && failed.length > 0 && failed.every((c) => c.disturbed_by);
    const verdict = busy ? 'could not judge' : A.exit_code === 3 ? 'could not run' : A.verdict === 'pass' ? 'pass' : 'fail';
    const hostsFailed = hosts.filter((h) => h.verdict !== 'pass');
    section.appendChild(el('h2', {}, 'Acceptance'));
    section.appendChild(el('p', {class: 'accept-verdict', id: 'accept-verdict'},
      el('span', {class: 'verdict-badge ' + (verdict === 'pass' ? 'pass' : 'fail')}, verdict.toUpperCase()), ' ',
      (EXIT_MEANING[A.exit_code] || 'exit ' + text(A.exit_code)) + '.'));
    section.appendChild(el('p', {class: 'muted'}, [
      'profile ' + (A.profile_name || A.profile || '?') + (A.profile && A.profile_name ? ' (' + A.profile + ')' : ''),
      Array.isArray(A.phases) && A.phases.length ? 'phases ' + A.phases.join(', ') : null,
      (checks.length - failed.length) + ' of ' + checks.length + ' checks passed',
      hosts.length ? (hosts.length - hostsFailed.length) + ' of ' + hosts.length + ' hosts passed' : null,
    ].filter(Boolean).join(' · ')));

    // ---------- suspects, most likely first ----------
    function suspectName(s) {
      if (s.kind === 'link') return 'link ' + text(s.host) + ' ↔ ' + text(s.peer);
      if (s.kind === 'rank') return 'rank ' + text(s.rank) + ' on ' + text(s.host);
      return 'host ' + text(s.host);
    }
    section.appendChild(el('h3', {}, 'Suspects, most likely first'));
    if (suspects.length) {
      const ol = el('ol', {class: 'suspects', id: 'accept-suspects'});
      for (const s of suspects) {
        const kind = ['host', 'link', 'rank'].includes(s.kind) ? s.kind : 'host';
        ol.appendChild(el('li', {class: 'suspect'},
          el('span', {class: 'badge kind-' + kind}, kind), ' ',
          el('span', {class: 'who'}, suspectName(s)),
          // score = 1 - its speed / its peers' (lib/accept/verdict.h)
          isNum(s.score) ? el('span', {class: 'muted'}, ' · score ' + fmtNum(s.score, 2) +
            ' (it ran at ' + Math.round(100 * (1 - s.score)) + '% of its peers\' speed)') : null,
          ...(Array.isArray(s.evidence) ? s.evidence : []).map((e) => el('span', {class: 'detail'}, text(e)))));
      }
      section.appendChild(ol);
    } else {
      section.appendChild(el('p', {class: 'muted', id: 'accept-no-suspect'}, verdict === 'pass' ?
        'None: every host and link performed like its peers.' :
        'None could be localised: the failures below are not pinned to one host, link or rank.'));
    }

    // ---------- failed checks ----------
    const figure = (v, unit) => (isNum(v) ? fmtNum(v) + (unit ? ' ' + unit : '') : '–');
    function checksTable(rows, id) {
      const table = el('table', {class: 'accept-checks', id});
      table.appendChild(el('tr', {}, ...['check', 'host', 'measured', 'limit', 'reason'].map((h) => el('th', {}, h))));
      for (const c of rows) {
        table.appendChild(el('tr', {class: c.passed === true ? 'passed' : 'failed'},
          el('td', {class: 'name'}, text(c.name) + (c.preflight ? ' (pre-flight)' : '')),
          el('td', {class: 'host'}, text(c.host) || 'all'),
          el('td', {class: 'num'}, figure(c.measured, c.unit)), el('td', {class: 'num'}, figure(c.limit, c.unit)),
          el('td', {}, text(c.reason))));
      }
      return table;
    }
    section.appendChild(el('h3', {}, 'Failed checks'));
    section.appendChild(failed.length ? checksTable(failed, 'accept-failed-checks') :
      el('p', {class: 'muted'}, 'None: all ' + checks.length + ' checks passed.'));

    // ---------- host-pair matrices ----------
    // Cell colour: the pair's median busbw over its pass line (the floor, or the localisation's threshold where
    // that is higher), so that a cell below 1 (red) is a pair below its floor or below the threshold.
    function passLine(m) {
      const lines = [m.floor_gbps, m.threshold_gbps].filter((v) => isNum(v) && v > 0);
      return lines.length ? Math.max(...lines) : null;
    }
    function pairHeatMap(m) {
      const names = (Array.isArray(m.hosts) ? m.hosts : []).map(text);
      const gbps = Array.isArray(m.busbw_gbps) ? m.busbw_gbps : [];
      const cell = (matrix, i, j) => (Array.isArray(matrix) && Array.isArray(matrix[i]) ? matrix[i][j] : undefined);
      const line = passLine(m);
      const measured = [], other = [];
      names.forEach((a, i) => names.forEach((b, j) => {
        const v = cell(gbps, i, j);
        if (i === j) {
          other.push({a, b, pair: a, what: 'same host', mark: ''});
        } else if (isNum(v)) {
          measured.push({a, b, pair: a + ' ↔ ' + b, gbps: v, ratio: line ? v / line : null,
            typical: isNum(m.typical_gbps) && m.typical_gbps > 0 ? v / m.typical_gbps : null,
            rounds: cell(m.rounds, i, j), passed: cell(m.rounds_passed, i, j)});
        } else {
          other.push({a, b, pair: a + ' ↔ ' + b, what: 'not measured: the pair never met', mark: '–'});
        }
      }));
      if (!measured.length) return {skip: 'no host pair was measured.'};
      const ratios = measured.map((r) => r.ratio).filter(isNum);
      const lo = Math.min(0.5, ...ratios), hi = Math.max(1.5, ...ratios);
      const size = Math.max(30, Math.min(56, Math.floor(560 / names.length)));
      const axis = {labelLimit: 180, title: null};
      const x = {field: 'b', type: 'nominal', sort: names, axis: Object.assign({orient: 'top', labelAngle: -40}, axis)};
      const y = {field: 'a', type: 'nominal', sort: names, axis};
      const tooltip = [
        {field: 'pair', title: 'pair'}, {field: 'gbps', title: 'median busbw (GB/s)', format: '.4~g'},
        {field: 'ratio', title: '× pass line', format: '.2f'},
        {field: 'typical', title: '× typical pair', format: '.2f'},
        {field: 'rounds', title: 'rounds met'}, {field: 'passed', title: 'rounds passed'},
      ];
      // Diverging at 1 (on the line); a log scale when a pair is many times above or below it.
      const color = line ? {field: 'ratio', type: 'quantitative', title: '× pass line',
        scale: {type: lo > 0 && hi / lo > 8 ? 'log' : 'linear', domain: [lo, 1, hi],
          range: ['#c0392b', '#f3f3f0', '#2e7d4f']}} :
        {field: 'gbps', type: 'quantitative', title: 'busbw (GB/s)', scale: {scheme: 'blues'}};
      const layers = [{
        data: {values: measured},
        mark: {type: 'rect', stroke: '#fff', strokeWidth: 1},
        encoding: {x, y, tooltip, color},
      }];
      // The figures in the cells while they are wide enough to read (up to 16 hosts); the tooltips always.
      if (names.length <= 16) {
        layers.push({
          data: {values: measured},
          mark: {type: 'text', fontSize: 10},
          encoding: {x, y, tooltip, text: {field: 'gbps', type: 'quantitative', format: '.2~g'},
            color: {condition: {test: 'datum.ratio != null && datum.ratio < 0.7', value: '#fff'}, value: '#1d2330'}},
        });
      }
      if (other.length) {
        layers.push({
          data: {values: other},
          mark: {type: 'rect', stroke: '#fff', strokeWidth: 1},
          encoding: {x, y, tooltip: [{field: 'pair', title: 'pair'}, {field: 'what', title: 'status'}],
            fill: {condition: {test: "datum.what === 'same host'", value: '#fafafa'}, value: '#e4e6eb'}},
        });
        if (names.length <= 16) {
          layers.push({data: {values: other}, mark: {type: 'text', color: '#5b6475'},
            encoding: {x, y, text: {field: 'mark'}}});
        }
      }
      const threshold = 'the localisation\'s threshold ' + figure(m.threshold_gbps, 'GB/s') +
        ' (a share of the typical pair\'s ' + figure(m.typical_gbps, 'GB/s') + ')';
      const lineWhat = isNum(m.floor_gbps) ? 'the higher of the floor ' + fmtNum(m.floor_gbps) + ' GB/s' +
        (m.floor ? ' (' + m.floor + ')' : '') + ' and ' + threshold : threshold + '; no pairs floor at this size';
      return {
        rows: measured.length,
        note: 'Cell: the pair\'s median bus bandwidth in GB/s over the rounds it met; ' +
          'colour: that over the pass line, ' +
          (line ? fmtNum(line) + ' GB/s, ' + lineWhat + '. Red: below it.' : 'none here, so by busbw.') +
          ' Grey “–”: a pair that never met.',
        spec: {width: size * names.length, height: size * names.length, layer: layers,
          config: {axis: {labelFontSize: 11}}},
      };
    }
    const drawn = [];
    if (matrices.length) {
      matrices.forEach((m, i) => {
        drawn.push(addChart('chart-accept-pairs' + (matrices.length > 1 ? '-' + (i + 1) : ''),
          'Host pairs: ' + text(m.op) + ' ' + fmtBytes(m.bytes) + ' bus bandwidth',
          'One cell per pair of hosts (row and column), from the pairs phase\'s re-pairing rounds: a slow host ' +
          'shows as a red row and column, a slow link as one red pair.', () => pairHeatMap(m), section));
      });
    } else {
      section.appendChild(el('p', {class: 'muted', id: 'accept-no-matrix'},
        'No host-pair matrix: the pairs phase did not run' +
        (Array.isArray(A.phases) && !A.phases.includes('pairs') ? ' (the profile has no pairs phase).' : '.')));
    }

    // ---------- hosts ----------
    if (hosts.length) {
      const gb = (v) => (isNum(v) && v > 0 ? fmtNum(v) : '–');
      const table = el('table', {class: 'accept-hosts', id: 'accept-hosts'});
      table.appendChild(el('tr', {}, ...['host', 'verdict', 'points', 'pair partners passed', 'host busbw GB/s',
        'pair busbw GB/s', 'why'].map((h) => el('th', {}, h))));
      for (const h of hosts) {
        const pass = h.verdict === 'pass';
        table.appendChild(el('tr', {class: pass ? 'passed' : 'failed'},
          el('td', {class: 'host'}, text(h.host)),
          el('td', {}, el('span', {class: 'verdict-badge ' + (pass ? 'pass' : 'fail')}, pass ? 'pass' : 'fail')),
          el('td', {class: 'num'}, text(h.points)),
          el('td', {class: 'num'}, isNum(h.partners) && h.partners > 0 ?
            text(h.partners_passed) + ' / ' + h.partners : '–'),
          el('td', {class: 'num'}, gb(h.host_busbw_gbps)), el('td', {class: 'num'}, gb(h.pair_busbw_gbps)),
          el('td', {}, (Array.isArray(h.reasons) ? h.reasons.map(text) : []).join('; '))));
      }
      section.appendChild(el('h3', {}, 'Hosts'));
      section.appendChild(table);
    }

    // ---------- notes and every check ----------
    if (Array.isArray(A.notes) && A.notes.length) {
      section.appendChild(el('ul', {class: 'accept-notes muted'}, ...A.notes.map((n) => el('li', {}, text(n)))));
    }
    if (checks.length) {
      section.appendChild(el('details', {id: 'accept-all-checks'},
        el('summary', {}, 'All ' + checks.length + ' checks, with the figures they passed or failed with'),
        checksTable(checks, 'accept-checks')));
    }
    section.appendChild(el('p', {class: 'muted'}, 'Below: the ordinary report of every point the phases measured ' +
      '(each point\'s id ends in its phase).'));
    return drawn;
  };
})();
