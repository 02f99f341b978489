#!/usr/bin/env node
// Browser test of the trend page (`commbench history check --html`): builds four histories with the real CLI from
// a real sweep's file (2 of its points, 3 repeats per run with 3 % seeded noise): "planted" (30 runs, one point
// 15 % slower from run 20, a commit string that is markup), "flat" (12 runs, nothing planted), "disturbed" (the
// planted step with run 20 measured under outside load) and "short" (5 runs); renders each page, loads it from a
// file:// URL in headless Chromium with networking off, and checks:
//   - the outcome line says what the exit code means (a disturbed slowdown and a short history both exit 3);
//   - no console error or uncaught exception, no network request; the page's script finished;
//   - one chart per series, drawn with SVG marks; the planted series shows a change-point rule, the flat none;
//   - the latest run is highlighted (a "latest run" mark in each chart);
//   - the change-point table has one row per change point, slowest first; none on the flat page;
//   - the hostile commit shows as text, nothing injected, no script ran;
//   - a full-page screenshot per page ($TEST_UNDECLARED_OUTPUTS_DIR), also of any extra --page FILE.
// usage: trend_browser_test.js --commbench PATH --real RESULT.json [--page HTML]... [--out DIR]
'use strict';

const childProcess = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const {sleep, prepareLoad, consoleAndNetworkFailures, screenshot, runBrowserCases} =
  require(path.resolve('reports/tools/webdriver.js'));

const HOSTILE = '<img src=x onerror="window.__pwned=1"><b data-injected="1">c20</b>';

function parseArgs(argv) {
  const args = {pages: [], out: process.env.TEST_UNDECLARED_OUTPUTS_DIR || os.tmpdir()};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--commbench') args.commbench = argv[++i];
    else if (argv[i] === '--real') args.real = argv[++i];
    else if (argv[i] === '--page') args.pages.push(argv[++i]);
    else if (argv[i] === '--out') args.out = argv[++i];
    else throw new Error('unknown argument ' + argv[i]);
  }
  if (!args.commbench || !args.real) throw new Error('usage: --commbench PATH --real RESULT.json');
  return args;
}

function gauss(seed) {
  let s = seed >>> 0;
  const uniform = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) + 1) / 4294967297;
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

// What a sweep records when outside processes took half of both CPUs over its timed window.
const HALF_TAKEN_BY_MAKE = {
  window_s: 1.0, cpu_busy_s: 2.0, ranks_cpu_s: 0.9, own_cpu_s: 0.9, outside_cpu_s: 1.0, outside_share: 0.5,
  monitor_cpu_s: 0.0, per_cpu: [{cpu: 0, busy_s: 1.0, outside_s: 0.5}, {cpu: 1, busy_s: 1.0, outside_s: 0.5}],
  top: [{pid: 42, comm: 'make', cpu_s: 1.0, cpus: [0, 1]}]};

// A history of `runs` runs of two of the real file's points; the first point (1 + step) slower from `at` on; run
// `disturbed` (if any) measured while make took half of the CPUs.
function makeHistory(cli, doc, dir, tmp, runs, at, step, disturbed) {
  const noise = gauss(runs * 31 + at);
  for (let i = 0; i < runs; i++) {
    const d = JSON.parse(JSON.stringify(doc));
    d.schema_version = 3;
    d.points = doc.points.slice(0, 2).map((p, k) => {
      const q = JSON.parse(JSON.stringify(p));
      const t = p.time_us.p50 * (k === 0 && i >= at ? 1 + step : 1);
      const r = [0, 1, 2].map(() => t * (1 + 0.03 * noise()));
      q.repeats = {n: 3, p50_us: r, mean_us: r};
      if (i === disturbed) q.host_load = HALF_TAKEN_BY_MAKE;
      return q;
    });
    const file = path.join(tmp, 'run.json');
    fs.writeFileSync(file, JSON.stringify(d));
    const time = '2026-11-' + String(1 + Math.floor(i / 24)).padStart(2, '0') + 'T' + String(i % 24).padStart(2, '0') + ':00:00Z';
    const commit = i === at ? HOSTILE : 'c' + i;
    const run = childProcess.spawnSync(cli, ['history', 'add', dir, file, '--commit', commit, '--time', time], {encoding: 'utf8'});
    if (run.status !== 0) throw new Error('history add: ' + run.stderr);
  }
}

const PROBE = `
  const s = window.commbenchHistory;
  if (!s) return {missing: true};
  const data = JSON.parse(document.getElementById('commbench-history').textContent);
  return {
    ready: s.ready, errors: s.errors, tableRows: s.tableRows,
    series: data.series.length,
    changes: data.series.map((x) => x.changes.length),
    ratios: Array.from(document.querySelectorAll('#changes-table tr.change-row td:nth-child(8)')).map((td) => parseFloat(td.textContent)),
    rows: document.querySelectorAll('#changes-table tr.change-row').length,
    charts: s.charts.map((c) => {
      const box = document.getElementById(c.id);
      // The latest run's mark: the one symbol in the highlight colour.
      const latest = box ? box.querySelectorAll('svg g.role-mark.mark-symbol path[fill="#e45756"]').length : 0;
      return {id: c.id, status: c.status, latest,
        marks: box ? box.querySelectorAll('svg g.role-mark path, svg g.role-mark line').length : 0,
        rules: box ? box.querySelectorAll('svg g.role-mark.mark-rule line').length : 0};
    }),
    injected: document.querySelectorAll('img, b, [data-injected]').length,
    pwned: window.__pwned || 0,
    outcome: (document.getElementById('outcome-word') || {}).textContent,
    text: document.body.innerText,
  };`;

async function load(wd, file) {
  await prepareLoad(wd);
  const url = 'file://' + path.resolve(file);
  await wd.call('POST', wd.session + '/url', {url});
  let probe;
  for (let i = 0; i < 100; i++) {
    probe = await wd.exec(PROBE);
    if (probe.missing || probe.ready) break;
    await sleep(100);
  }
  return {probe, url};
}

function checkProbe(probe, c) {
  const f = [];
  if (probe.missing) return ['the page script did not run'];
  if (!probe.ready) return ['the page did not finish drawing within 10 s'];
  for (const e of probe.errors) f.push('page error: ' + e);
  if (probe.charts.length !== probe.series) f.push(probe.charts.length + ' charts for ' + probe.series + ' series');
  const total = probe.changes.reduce((a, b) => a + b, 0);
  probe.charts.forEach((ch, i) => {
    if (ch.status !== 'drawn' || ch.marks === 0) f.push(ch.id + ': ' + ch.status + ', ' + ch.marks + ' marks');
    if (ch.latest !== 1) f.push(ch.id + ': the latest run is not highlighted');
    // Level rules are one per segment; change-point rules one per change on top.
    if (probe.changes[i] > 0 && ch.rules < probe.changes[i] + 2) f.push(ch.id + ': change points not marked');
  });
  if (c.changes !== undefined && total !== c.changes) f.push(total + ' change points, expected ' + c.changes);
  if (probe.rows !== total || probe.tableRows !== total) f.push('the table has ' + probe.rows + ' rows for ' + total);
  for (let i = 1; i < probe.ratios.length; i++) {
    if (probe.ratios[i] > probe.ratios[i - 1]) f.push('the table is not slowest first: ' + probe.ratios.join(', '));
  }
  if (probe.injected) f.push(probe.injected + ' element(s) injected');
  if (probe.pwned) f.push('a script from the files ran');
  for (const t of c.texts || []) if (!probe.text.includes(t)) f.push('not shown as text: ' + t);
  if (c.outcome !== undefined && probe.outcome !== c.outcome) f.push('outcome "' + probe.outcome + '", expected "' + c.outcome + '"');
  return f;
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const doc = JSON.parse(fs.readFileSync(args.real, 'utf8'));
  const cases = [
    {name: 'planted', runs: 30, at: 20, step: 0.15, rc: 1, changes: 1, texts: [HOSTILE], outcome: 'regression'},
    {name: 'flat', runs: 12, at: 99, step: 0, rc: 0, changes: 0, outcome: 'no regression'},
    // Exit 3 for either reason, and the page says which.
    {name: 'disturbed', runs: 30, at: 20, step: 0.15, disturbed: 20, rc: 3, changes: 1,
     outcome: 'disturbed: cannot say, re-run on a quiet runner'},
    {name: 'short', runs: 5, at: 99, step: 0, rc: 3, changes: 0, outcome: 'too short to say'},
  ];
  runBrowserCases(async ({wd, tmp, record}) => {
    for (const c of cases) {
      const dir = path.join(tmp, c.name);
      const html = path.join(tmp, 'trend-' + c.name + '.html');
      makeHistory(args.commbench, doc, dir, tmp, c.runs, c.at, c.step, c.disturbed);
      const run = childProcess.spawnSync(args.commbench, ['history', 'check', dir, '--last', '10', '--html', html], {encoding: 'utf8'});
      const failures = run.status === c.rc ? [] : ['history check exited ' + run.status + ': ' + run.stdout + run.stderr];
      const {probe, url} = await load(wd, html);
      failures.push(...checkProbe(probe, c), ...await consoleAndNetworkFailures(wd, url));
      await screenshot(wd, path.join(args.out, 'trend-' + c.name + '.png'));
      record(c.name, failures, JSON.stringify(probe.charts));
    }
    for (const page of args.pages) {
      const {probe, url} = await load(wd, page);
      const failures = [...checkProbe(probe, {}), ...await consoleAndNetworkFailures(wd, url)];
      await screenshot(wd, path.join(args.out, 'page-' + path.basename(page, '.html') + '.png'));
      record(page, failures);
    }
  });
}

main();
