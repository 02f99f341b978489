#!/usr/bin/env node
// Browser test of the comparison page (`commbench compare --html`): builds result files from a real sweep's file
// (its points repeated 6 times with 1 % noise, a stand-in for `sweep --repeats 6`), renders one page per outcome
// with the real CLI (pass, regression, inconclusive with a point on one side only, and incomparable with hostile
// strings in an environment value, a point id and a file-level problem), loads each from a file:// URL in
// headless Chromium with networking off, and checks:
//   - no console error or uncaught exception, no network request;
//   - the page's script finished; the outcome shown is the JSON's; every chart it registered is drawn with SVG
//     marks and data rows, or replaced by a sentence saying why (the ratio and before/after charts must be drawn);
//   - the table has one row per point;
//   - no string from the files became markup (no element injected, no script ran), and each shows as text;
//   - hovering a point of the ratio chart shows a tooltip with its numbers;
//   - a full-page screenshot PNG per page ($TEST_UNDECLARED_OUTPUTS_DIR under Bazel).
//
// usage: comparison_browser_test.js --commbench PATH --real RESULT.json [--out DIR] [--max-render-ms N]
'use strict';

const childProcess = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const {sleep, prepareLoad, consoleAndNetworkFailures, screenshot, runBrowserCases} = require('./webdriver.js');

const HOSTILE_ENV = '<img src=x onerror="window.__pwned=1"><b data-injected="1">env</b>';
const HOSTILE_ID = 'gloo/allreduce/<script>window.__pwned=2</script><b data-injected="2">id</b>';
const HOSTILE_FAILURE = 'rank 1 said </script><img src=x onerror="window.__pwned=3">';

function parseArgs(argv) {
  const args = {maxRenderMs: 5000, out: process.env.TEST_UNDECLARED_OUTPUTS_DIR || os.tmpdir()};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--commbench') args.commbench = argv[++i];
    else if (argv[i] === '--real') args.real = argv[++i];
    else if (argv[i] === '--out') args.out = argv[++i];
    else if (argv[i] === '--max-render-ms') args.maxRenderMs = Number(argv[++i]);
    else throw new Error('unknown argument ' + argv[i]);
  }
  if (!args.commbench || !args.real) throw new Error('usage: --commbench PATH --real RESULT.json');
  return args;
}

// A seeded normal draw (Box-Muller over a 32-bit LCG): the same files on every run.
function gauss(seed) {
  let s = seed >>> 0;
  const uniform = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) + 1) / 4294967297;
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

// The real file's points, each repeated 6 times with 1 % noise; `slow` ids take `factor` longer.
function repeated(doc, seed, slow, factor) {
  const noise = gauss(seed);
  const d = JSON.parse(JSON.stringify(doc));
  d.points = [];
  for (let r = 0; r < 6; r++) {
    for (const p of doc.points) {
      const q = JSON.parse(JSON.stringify(p));
      q.time_us.p50 = p.time_us.p50 * (slow && slow.includes(p.id) ? factor : 1) * (1 + 0.01 * noise());
      d.points.push(q);
    }
  }
  return d;
}

// The pages: result files, the CLI's exit code, and what each page must show.
function makeCases(doc) {
  const ids = doc.points.map((p) => p.id);
  const base = repeated(doc, 1);
  const cases = [
    {name: 'pass', base, now: repeated(doc, 2), rc: 0, outcome: 'pass'},
    {name: 'regression', base, now: repeated(doc, 3, [ids[0], ids[4]], 1.25), rc: 1, outcome: 'regression'},
  ];
  const missing = repeated(doc, 4);
  missing.points = missing.points.filter((p) => p.id !== ids[1]);
  cases.push({name: 'inconclusive', base, now: missing, rc: 3, outcome: 'inconclusive'});
  // Hostile strings where files put text: an environment value (drift: incomparable), a point id on both sides,
  // and the failure of a partial file (a file-level problem).
  const rename = (d) => d.points.forEach((p) => { if (p.id === ids[2]) p.id = HOSTILE_ID; });
  const hostileBase = repeated(doc, 5);
  const hostileNew = repeated(doc, 6);
  rename(hostileBase);
  rename(hostileNew);
  hostileNew.environment.variables = Object.assign({}, hostileNew.environment.variables, {NCCL_ALGO: HOSTILE_ENV});
  hostileNew.status = 'partial';
  hostileNew.failure = HOSTILE_FAILURE;
  cases.push({name: 'hostile', base: hostileBase, now: hostileNew, rc: 3, outcome: 'incomparable',
    texts: [HOSTILE_ENV, HOSTILE_FAILURE], titles: [HOSTILE_ID]});
  return cases;
}

// In-page probe: the page's own record plus what is really in its DOM.
const PROBE = `
  const s = window.commbenchComparison;
  if (!s) return {missing: true};
  const data = JSON.parse(document.getElementById('commbench-comparison').textContent);
  return {
    ready: s.ready, readyAtMs: s.readyAtMs, errors: s.errors, tableRows: s.tableRows,
    points: data.points.length, outcome: data.outcome,
    shownOutcome: (document.getElementById('outcome-word') || {}).textContent || '',
    rows: document.querySelectorAll('#points-table tr.point-row').length,
    charts: s.charts.map((c) => {
      const box = document.getElementById(c.id);
      const marks = box ? box.querySelectorAll('svg g.role-mark.mark-line path, svg g.role-mark.mark-symbol path, ' +
        'svg g.role-mark.mark-rect path, svg g.role-mark.mark-rule line, canvas').length : 0;
      let viewRows = 0;
      if (c.view) {
        for (let i = 0; i < 12; i++) {
          try { viewRows += c.view.data('data_' + i).length; } catch (e) { /* no such dataset */ }
        }
      }
      return {id: c.id, status: c.status, reason: c.reason || '', marks, viewRows,
        frames: box ? box.querySelectorAll('svg, canvas').length : 0, text: box ? box.innerText.slice(0, 300) : ''};
    }),
    injected: document.querySelectorAll('img, b, [data-injected]').length,
    pwned: window.__pwned || 0,
    text: document.body.innerText,
    titles: Array.from(document.querySelectorAll('#points-table td[title]')).map((td) => td.title),
    overflowX: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  };`;

async function hoverTooltip(wd) {
  const target = await wd.exec(`
    const m = document.querySelector('#chart-ratio svg g.role-mark.mark-symbol path');
    if (!m) return null;
    m.scrollIntoView({block: 'center'});
    const b = m.getBoundingClientRect();
    return {x: b.left + b.width / 2, y: b.top + b.height / 2};`);
  if (!target) return 'no point to hover in the ratio chart';
  await wd.cdp('Input.dispatchMouseEvent', {type: 'mouseMoved', x: target.x - 3, y: target.y - 3});
  await sleep(50);
  await wd.cdp('Input.dispatchMouseEvent', {type: 'mouseMoved', x: target.x, y: target.y});
  for (let i = 0; i < 20; i++) {
    const tip = await wd.exec(`const t = document.getElementById('vg-tooltip-element');
      return t && t.classList.contains('visible') ? t.innerText : '';`);
    if (/ratio/.test(tip) && /\d/.test(tip)) return {tip};
    await sleep(100);
  }
  return 'hovering a point of the ratio chart showed no tooltip with its ratio';
}

async function checkPage(wd, file, c, args) {
  const failures = [];
  await prepareLoad(wd);
  const url = 'file://' + path.resolve(file);
  await wd.call('POST', wd.session + '/url', {url});
  let probe;
  for (let i = 0; i < 100; i++) {
    probe = await wd.exec(PROBE);
    if (probe.missing || probe.ready) break;
    await sleep(100);
  }
  const result = {page: c.name, readyAtMs: probe.readyAtMs, charts: (probe.charts || []).map((x) => x.id + ':' + x.status)};
  if (probe.missing) failures.push('the page script did not run (window.commbenchComparison missing)');
  else if (!probe.ready) failures.push('the page did not finish drawing within 10 s');
  if (probe.ready) {
    if (probe.readyAtMs > args.maxRenderMs) failures.push('the page took ' + Math.round(probe.readyAtMs) + ' ms to draw');
    for (const e of probe.errors) failures.push('page error: ' + e);
    if (probe.outcome !== c.outcome) failures.push('the JSON says ' + probe.outcome + ', expected ' + c.outcome);
    if (probe.shownOutcome !== probe.outcome) failures.push('the page shows "' + probe.shownOutcome + '", the JSON ' + probe.outcome);
    if (probe.rows !== probe.points || probe.tableRows !== probe.points) {
      failures.push('the table has ' + probe.rows + ' rows for ' + probe.points + ' points');
    }
    for (const ch of probe.charts) {
      if (ch.status === 'drawn') {
        if (ch.marks === 0) failures.push(ch.id + ': drawn but no SVG marks');
        if (ch.viewRows === 0) failures.push(ch.id + ': drawn but the view holds no data rows');
      } else if (ch.status === 'skipped') {
        if (ch.frames) failures.push(ch.id + ': skipped but shows an empty chart frame');
        if (!ch.reason) failures.push(ch.id + ': skipped without saying why');
      } else {
        failures.push(ch.id + ': status ' + ch.status + ' ' + ch.text);
      }
    }
    for (const id of ['chart-ratio', 'chart-before-after']) {
      const ch = probe.charts.find((x) => x.id === id);
      if (!ch || ch.status !== 'drawn') failures.push(id + ': expected drawn, is ' + (ch ? ch.status + ' (' + ch.reason + ')' : 'absent'));
    }
    if (probe.injected) failures.push(probe.injected + ' element(s) injected by strings from the files');
    if (probe.pwned) failures.push('a script from the files ran (window.__pwned = ' + probe.pwned + ')');
    for (const t of c.texts || []) if (!probe.text.includes(t)) failures.push('not shown as text: ' + t);
    for (const t of c.titles || []) if (!probe.titles.includes(t)) failures.push('not in a row title: ' + t);
    if (probe.overflowX > 0) failures.push('the page is ' + probe.overflowX + ' px wider than the 1280 px window');
    const hover = await hoverTooltip(wd);
    if (typeof hover === 'string') failures.push(hover);
    else result.tooltip = hover.tip.replace(/\s+/g, ' ').slice(0, 160);
  }
  failures.push(...await consoleAndNetworkFailures(wd, url));
  await screenshot(wd, path.join(args.out, 'comparison-' + c.name + '.png'));
  result.bytes = fs.statSync(file).size;
  return {failures, result};
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const doc = JSON.parse(fs.readFileSync(args.real, 'utf8'));
  // browser_test.sh has checked that chromium and chromedriver exist (a missing one fails the test).
  runBrowserCases(async ({wd, tmp, record}) => {
    for (const c of makeCases(doc)) {
      const files = {base: path.join(tmp, c.name + '-base.json'), now: path.join(tmp, c.name + '-new.json'),
        html: path.join(tmp, 'comparison-' + c.name + '.html')};
      fs.writeFileSync(files.base, JSON.stringify(c.base));
      fs.writeFileSync(files.now, JSON.stringify(c.now));
      const run = childProcess.spawnSync(args.commbench, ['compare', files.base, files.now, '--html', files.html],
        {encoding: 'utf8'});
      if (run.status !== c.rc || !fs.existsSync(files.html)) {
        record(c.name, ['compare exited ' + run.status + ' (expected ' + c.rc + ')\n' + run.stdout + run.stderr]);
        continue;
      }
      const {failures, result} = await checkPage(wd, files.html, c, args);
      console.log(JSON.stringify(result));
      record(c.name, failures);
    }
  });
}

main();
