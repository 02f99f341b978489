#!/usr/bin/env node
// Browser test of HTML reports: loads each report from a file:// URL in headless Chromium with networking
// disabled and checks what a reader would notice first:
//   - no console error and no uncaught exception;
//   - no network request at all (beyond the file itself), failed or not;
//   - the page's script finished, and every chart it registered is either drawn with marks (SVG nodes of the
//     chart's mark types, and rows in the chart's Vega view) or replaced by a sentence saying why - never an
//     empty frame; charts the caller expects (--expect-drawn) must be drawn;
//   - hovering a mark shows a tooltip holding the exact value;
//   - the acceptance section (`commbench accept` results) is there exactly when the embedded result has an
//     `acceptance` block, on top of the page, with the verdict, one drawn heat map per pair matrix (a cell's
//     tooltip gives the rounds passed), every suspect and every host, each host name shown as text; and no
//     element that markup in the result's strings could have injected (img, iframe, on* handlers) in any page;
//   - a full-page screenshot PNG is written (to $TEST_UNDECLARED_OUTPUTS_DIR under Bazel).
//
// It drives Chromium through chromedriver's W3C WebDriver HTTP API with Node's built-in fetch (webdriver.js), so it
// needs no npm package: only the Debian packages chromium and chromium-driver (reports/tools/setup.sh installs them).
//
// A .json argument is a results file: it is rendered with `COMMBENCH report` (--commbench) first.
//
// usage: browser_test.js [--out DIR] [--max-render-ms N] [--commbench PATH] [--expect-drawn id,id] REPORT.html
//                         [--expect-drawn ...] REPORT.html ...   (an --expect-drawn applies to the reports after it)
//        --expect-first-suspect 'A|B|C' REPORT: the next report's first acceptance suspect names A, B, C in order
//        --expect-verdict 'COULD NOT JUDGE' REPORT: the next report's acceptance verdict reads so
//        browser_test.js --expect-fail REPORT.html   (self-check: the page must fail; exit 0 when it does)
'use strict';

const childProcess = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const {sleep, prepareLoad, consoleAndNetworkFailures, screenshot, runBrowserCases} = require('./webdriver.js');

function parseArgs(argv) {
  const args = {maxRenderMs: 5000, out: process.env.TEST_UNDECLARED_OUTPUTS_DIR || os.tmpdir(), reports: []};
  let expectDrawn = [], expectFail = false, firstSuspect = null, verdict = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--expect-drawn') expectDrawn = argv[++i].split(',').filter(Boolean);
    else if (argv[i] === '--expect-fail') expectFail = true;
    else if (argv[i] === '--expect-first-suspect') firstSuspect = argv[++i].split('|');
    else if (argv[i] === '--expect-verdict') verdict = argv[++i];
    else if (argv[i] === '--max-render-ms') args.maxRenderMs = Number(argv[++i]);
    else if (argv[i] === '--out') args.out = argv[++i];
    else if (argv[i] === '--commbench') args.commbench = argv[++i];
    else {
      args.reports.push({file: argv[i], expectDrawn, expectFail, firstSuspect, verdict});
      firstSuspect = null;
      verdict = null;
    }
  }
  return args;
}

// In-page probe: the report's own record plus what is really in each chart's DOM.
const PROBE = `
  const r = window.commbenchReport;
  if (!r) return {missing: true};
  return {
    ready: r.ready, renderMs: r.renderMs, readyAtMs: r.readyAtMs, errors: r.errors,
    charts: r.charts.map((c) => {
      const box = document.getElementById(c.id);
      // Data marks only (Vega gives them the class role-mark): axes, grids and legends do not count.
      const marks = box ? box.querySelectorAll('svg g.role-mark.mark-line path, svg g.role-mark.mark-symbol path, ' +
        'svg g.role-mark.mark-rect path, svg g.role-mark.mark-rule line').length : 0;
      const frames = box ? box.querySelectorAll('svg').length : 0;
      let viewRows = 0;
      if (c.view) {
        // Vega-Lite names its datasets data_0, data_1, ...; count the rows that reached the marks.
        for (let i = 0; i < 12; i++) {
          try { viewRows += c.view.data('data_' + i).length; } catch (e) { /* no such dataset */ }
        }
      }
      // A broken scale (e.g. a log axis fed a negative value) piles every point at one edge: flag a set of four or
      // more points drawn at one height at the top or bottom of their view (or in a view of unknown height). A
      // constant value on a linear axis (measured bytes equal to the model's, a ratio of 1) is drawn mid-view.
      const viewHeight = (g) => {
        for (let n = g.parentElement; n; n = n.parentElement) {
          const bg = Array.from(n.children).find((k) => k.matches('path.background'));
          const h = bg && /v(-?[0-9.]+)/.exec(bg.getAttribute('d') || '');
          if (h) return Math.abs(Number(h[1]));
        }
        return null;
      };
      let flatSets = 0;
      for (const g of box ? box.querySelectorAll('svg g.role-mark.mark-symbol') : []) {
        const ys = Array.from(g.querySelectorAll('path')).map((p) => (p.getAttribute('transform') || '').split(',')[1]);
        if (ys.length < 4 || new Set(ys).size !== 1) continue;
        const y = parseFloat(ys[0]), h = viewHeight(g);
        if (h === null || !(y > 1 && y < h - 1)) flatSets++;
      }
      return {id: c.id, status: c.status, reason: c.reason || '', rows: c.rows || 0, marks, frames, viewRows, flatSets,
        text: box ? box.innerText.slice(0, 300) : ''};
    }),
    headline: (document.getElementById('headline') || {}).textContent || '',
    command: (document.getElementById('command') || {}).textContent || '',
    copyButton: !!document.querySelector('button#copy-command'),
    links: document.querySelectorAll('a[href]').length,
    // What markup in a host name or a reason would create if it were parsed instead of shown as text.
    injected: Array.from(document.querySelectorAll('img, iframe, object, embed, [onerror], [onload], [onclick]'))
      .map((e) => e.outerHTML.slice(0, 80)),
    acceptance: (() => {
      let block = null;
      try {
        block = JSON.parse(document.getElementById('commbench-result').textContent).acceptance || null;
      } catch (e) { /* report.js reports an unreadable result */ }
      const sec = document.getElementById('acceptance');
      const list = (v) => (block && Array.isArray(block[v]) ? block[v] : []);
      return {
        inFile: !!block, shown: !!sec, onTop: !!sec && document.querySelector('main').firstElementChild === sec,
        verdict: (document.getElementById('accept-verdict') || {}).textContent || '',
        matrices: list('pair_matrices').length,
        // Those with a measured pair: the rest have nothing to draw and must say so.
        measuredMatrices: list('pair_matrices').filter((m) => Array.isArray(m.busbw_gbps) &&
          m.busbw_gbps.some((row) => Array.isArray(row) && row.some((v) => typeof v === 'number'))).length,
        suspectsInFile: list('suspects').length,
        suspects: sec ? Array.from(sec.querySelectorAll('#accept-suspects > li .who')).map((e) => e.textContent) : [],
        hostsInFile: list('hosts').map((h) => String(h.host)),
        hostCells: sec ? Array.from(sec.querySelectorAll('#accept-hosts td.host')).map((e) => e.textContent) : [],
      };
    })(),
    overflowX: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  };`;

// Hovers the first mark `selector` finds (default: the first symbol, a measured point, in the first drawn chart)
// and returns {tip} once a tooltip with a digit (and `mustHave`, when given) shows, or what went wrong.
async function hoverCheck(wd, selector, mustHave) {
  const target = await wd.exec(`
    const m = arguments[0] ? document.querySelector(arguments[0]) :
      document.querySelector('.chart svg g.role-mark.mark-symbol path') ||
      document.querySelector('.chart svg g.role-mark.mark-rect path');
    if (!m) return null;
    m.scrollIntoView({block: 'center'});
    const b = m.getBoundingClientRect();
    return {x: b.left + b.width / 2, y: b.top + b.height / 2};`, [selector || null]);
  if (!target) return 'no point or cell to hover' + (selector ? ' (' + selector + ')' : '');
  for (const type of ['mouseMoved']) {
    await wd.cdp('Input.dispatchMouseEvent', {type, x: target.x - 3, y: target.y - 3});
    await sleep(50);
    await wd.cdp('Input.dispatchMouseEvent', {type, x: target.x, y: target.y});
  }
  for (let i = 0; i < 20; i++) {
    const tip = await wd.exec(`const t = document.getElementById('vg-tooltip-element');
      return t && t.classList.contains('visible') ? t.innerText : '';`);
    if (tip && /\d/.test(tip) && (!mustHave || tip.includes(mustHave))) return {tip};
    await sleep(100);
  }
  return 'hovering ' + (selector || 'a point') + ' showed no tooltip with a value' +
    (mustHave ? ' and "' + mustHave + '"' : '');
}

// The acceptance section: there exactly when the file has the block, and complete (see the header).
function acceptanceFailures(a, charts, firstSuspect, verdict) {
  const failures = [];
  if (a.inFile !== a.shown) {
    failures.push(a.inFile ? 'the result has an acceptance block but the page shows no acceptance section' :
      'an acceptance section without an acceptance block in the result');
  }
  if (firstSuspect && !a.inFile) failures.push('--expect-first-suspect given for a result without acceptance');
  if (verdict && !a.inFile) failures.push('--expect-verdict given for a result without acceptance');
  if (!a.shown) return failures;
  if (!a.onTop) failures.push('the acceptance section is not the first thing in <main>');
  if (!/^(PASS|FAIL|COULD NOT RUN|COULD NOT JUDGE) exit \d: /.test(a.verdict)) {
    failures.push('acceptance verdict reads "' + a.verdict + '"');
  }
  if (verdict && !a.verdict.startsWith(verdict + ' exit ')) {
    failures.push('acceptance verdict reads "' + a.verdict + '", expected ' + verdict);
  }
  const maps = charts.filter((c) => c.id.startsWith('chart-accept-pairs'));
  if (maps.length !== a.matrices || maps.filter((c) => c.status === 'drawn').length !== a.measuredMatrices) {
    failures.push(a.matrices + ' pair matri(ces) in the file, ' + a.measuredMatrices + ' with a measured pair; ' +
      'heat maps: ' + (maps.map((c) => c.id + ' ' + c.status).join(', ') || 'none'));
  }
  if (a.suspects.length !== a.suspectsInFile) {
    failures.push(a.suspectsInFile + ' suspect(s) in the file, ' + a.suspects.length + ' listed');
  }
  if (firstSuspect) {
    let at = 0;
    const first = a.suspects[0] || '';
    for (const part of firstSuspect) {
      const found = first.indexOf(part, at);
      if (found < 0) {
        failures.push('the first suspect reads "' + first + '", expected ' + firstSuspect.join(' … '));
        break;
      }
      at = found + part.length;
    }
  }
  if (JSON.stringify(a.hostCells) !== JSON.stringify(a.hostsInFile)) {
    failures.push('hosts table shows ' + JSON.stringify(a.hostCells) + ', the file has ' +
      JSON.stringify(a.hostsInFile));
  }
  return failures;
}

async function checkReport(wd, file, expectDrawn, args, firstSuspect, verdict) {
  const failures = [];
  await prepareLoad(wd);
  const url = 'file://' + path.resolve(file);
  const t0 = Date.now();
  await wd.call('POST', wd.session + '/url', {url});
  let probe;
  for (let i = 0; i < 100; i++) {
    probe = await wd.exec(PROBE);
    if (probe.missing || probe.ready) break;
    await sleep(100);
  }
  const loadMs = Date.now() - t0;
  if (probe.missing) failures.push('the report script did not run (window.commbenchReport missing)');
  else if (!probe.ready) failures.push('the report did not finish drawing within 10 s');

  const name = path.basename(file, '.html');
  const result = {file: name, loadMs, readyAtMs: probe.readyAtMs, renderMs: probe.renderMs, charts: probe.charts || []};
  if (probe.ready) {
    // Generous for loaded CI machines; the target (under a second) is what a free 2-core VM measures.
    if (probe.readyAtMs > args.maxRenderMs) failures.push('the page took ' + Math.round(probe.readyAtMs) + ' ms to draw');
    for (const e of probe.errors) failures.push('report error: ' + e);
    if (!probe.headline) failures.push('no verdict headline');
    if (!probe.command || !probe.copyButton) failures.push('no command line with a copy button');
    if (probe.overflowX > 0) failures.push('the page is ' + probe.overflowX + ' px wider than the 1280 px window');
    if (probe.links) failures.push(probe.links + ' link(s) in the page; the report must be link-free');
    if (probe.injected.length) failures.push('injected element(s): ' + probe.injected.join(' '));
    failures.push(...acceptanceFailures(probe.acceptance, probe.charts, firstSuspect, verdict));
    for (const c of probe.charts) {
      if (c.status === 'drawn') {
        if (c.marks === 0) failures.push(c.id + ': drawn but no SVG marks');
        if (c.viewRows === 0) failures.push(c.id + ': drawn but the view holds no data rows');
        if (c.flatSets) failures.push(c.id + ': ' + c.flatSets + ' set(s) of points all drawn at one height (broken scale?)');
      } else if (c.status === 'skipped') {
        if (c.frames) failures.push(c.id + ': skipped but shows an empty chart frame');
        if (!c.reason) failures.push(c.id + ': skipped without saying why');
      } else {
        failures.push(c.id + ': status ' + c.status + ' ' + c.text);
      }
    }
    for (const id of expectDrawn) {
      const c = probe.charts.find((x) => x.id === id);
      if (!c || c.status !== 'drawn') failures.push(id + ': expected drawn, is ' + (c ? c.status + ' (' + c.reason + ')' : 'absent'));
    }
    if (probe.charts.some((c) => c.status === 'drawn')) {
      const hover = await hoverCheck(wd);
      if (typeof hover === 'string') failures.push(hover);
      else result.tooltip = hover.tip.replace(/\s+/g, ' ').slice(0, 160);
    }
    if (probe.acceptance.matrices) {
      // A measured cell of the first pair matrix (its first layer) tells the pair's rounds.
      const hover = await hoverCheck(wd, '[id^="chart-accept-pairs"] svg g.role-mark.mark-rect path', 'rounds passed');
      if (typeof hover === 'string') failures.push(hover);
      else result.pairTooltip = hover.tip.replace(/\s+/g, ' ').slice(0, 200);
    }
  }

  failures.push(...await consoleAndNetworkFailures(wd, url));
  result.screenshot = path.join(args.out, name + '.png');
  await screenshot(wd, result.screenshot);
  result.bytes = fs.statSync(file).size;

  // After the screenshot, so that it shows the page as a reader first sees it.
  if (probe.ready) {
    // The copy button: clicking it must copy (clipboard API, or the selection fallback) and say so.
    // A WebDriver click is a trusted user gesture, which the clipboard requires (a script's click() is not).
    // Every label the button takes is recorded: the clipboard answers when it will (seconds on a busy runner),
    // and "Copied" turns back into "Copy" 1.5 s later, so a single look after a fixed pause can miss it.
    let copied = 'no button';
    const found = await wd.call('POST', wd.session + '/element', {using: 'css selector', value: '#copy-command'})
      .catch(() => null);
    if (found) {
      await wd.exec(`const b = document.getElementById('copy-command'); window.__copyLabels = [];
        new MutationObserver(() => window.__copyLabels.push(b.textContent))
          .observe(b, {childList: true, characterData: true, subtree: true});`);
      const elementId = Object.values(found)[0];
      await wd.call('POST', wd.session + '/element/' + elementId + '/click', {});
      const labels = async () => wd.exec(`return window.__copyLabels;`);
      for (let waited = 0; (await labels()).length === 0 && waited < 10000; waited += 100) await sleep(100);
      const seen = await labels();
      copied = seen.length ? seen[0] : await wd.exec(`return document.getElementById('copy-command').textContent;`);
    }
    if (copied !== 'Copied') failures.push('the copy button says "' + copied + '" after a click, not "Copied"');
  }
  return {failures, result};
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!args.reports.length) {
    console.error('usage: browser_test.js [--expect-drawn id,...] [--out DIR] REPORT.html...');
    process.exit(2);
  }
  // browser_test.sh has checked that chromium and chromedriver exist (a missing one fails the test).
  runBrowserCases(async ({wd, tmp, record}) => {
    for (const report of args.reports) {
      const {expectDrawn, expectFail, firstSuspect, verdict} = report;
      let file = report.file;
      if (file.endsWith('.json')) {
        if (!args.commbench) throw new Error(file + ': a results file needs --commbench to render it');
        const html = path.join(tmp, path.basename(file, '.json') + '.html');
        childProcess.execFileSync(args.commbench, ['report', file, '-o', html], {stdio: ['ignore', 'ignore', 'inherit']});
        file = html;
      }
      const {failures, result} = await checkReport(wd, file, expectDrawn, args, firstSuspect, verdict);
      console.log(JSON.stringify(result));
      if (expectFail) {
        // Self-check of this harness: a page with known faults must be caught.
        const caught = (what) => failures.some((f) => f.includes(what));
        const ok = caught('console:') && caught('network request:') && caught('no SVG marks') && caught('at one height');
        record(ok ? '(caught as expected) ' + file : '(a faulty page passed) ' + file,
          ok ? [] : ['expected console, network, no-SVG and flat-set failures; got: ' + failures.join('; ')]);
      } else {
        record(file, failures);
      }
    }
  });
}

main();
