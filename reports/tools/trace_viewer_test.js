// `commbench export --trace` opened in a real offline trace viewer: speedscope (npm, installed by
// reports/tools/setup.sh; Perfetto's UI is not on npm). A real small sweep with a straggler (2 groups of 2 ranks,
// rank 2 slowed by 10 ms per iteration) writes its trace; speedscope's own offline path (what its CLI does: the
// trace as a base64 script next to file://.../index.html#localProfilePath=) loads it in headless Chromium with
// networking off. Checks: imported as Trace Event Format, no nesting complaint from the importer (an event ending
// after its sibling began), no console error, no request outside the viewer's files and the trace; one profile per
// (process, thread) named by the trace's process and thread names; for each rank the viewer's own iteration
// totals match the trace's, and the straggler group's iteration lanes hold at least the planted delay and are longer
// than the others'.
// A screenshot of the fast and the slow rank's timelines goes to the test's undeclared outputs (outputs.zip), or
// to `--screenshot FILE` (how docs/img/trace-speedscope.png is made:
//   node reports/tools/trace_viewer_test.js --commbench .bazel/bin/tools/commbench/commbench \
//     --speedscope /opt/commbench/speedscope/node_modules/speedscope/dist/release/index.html \
//     --screenshot docs/img/trace-speedscope.png).
'use strict';

const childProcess = require('child_process');
const fs = require('fs');
const path = require('path');
const {sleep, prepareLoad, runBrowserCases} = require('./webdriver.js');

const args = process.argv.slice(2);
const flag = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const COMMBENCH = path.resolve(flag('--commbench'));
const INDEX = path.resolve(flag('--speedscope'));
const SHOT = flag('--screenshot') ||
  (process.env.TEST_UNDECLARED_OUTPUTS_DIR && path.join(process.env.TEST_UNDECLARED_OUTPUTS_DIR, 'trace-speedscope.png'));
const SLOW_GROUP = 1;
const SLOW_US = 10000;  // rank 2's planted delay per iteration
const SHOT_HEIGHT = 190;  // toolbar, minimap and the lanes of one rank's timeline

// Speedscope's durations as it prints them: "287.59ms", "209.70µs", "1.02s".
function parseDuration(text) {
  const m = /^([\d.]+)(ns|µs|ms|s)\b/.exec(text.trim());
  if (!m) return NaN;
  return Number(m[1]) * {ns: 1e-3, 'µs': 1, ms: 1e3, s: 1e6}[m[2]];
}

// The profiles speedscope makes of the trace: one per (pid, tid) with events, named as its Trace Event importer
// names them, with the trace's own iteration totals.
function expectedProfiles(trace) {
  const processName = {}, threadName = {}, lanes = new Map();
  for (const e of trace.traceEvents) {
    if (e.ph === 'M' && e.name === 'process_name') processName[e.pid] = e.args.name;
    if (e.ph === 'M' && e.name === 'thread_name') threadName[e.pid + ':' + e.tid] = e.args.name;
    if (e.ph !== 'X') continue;
    const key = e.pid + ':' + e.tid;
    if (!lanes.has(key)) lanes.set(key, {pid: e.pid, tid: e.tid, iterations: 0, iterationUs: 0, group: null});
    const lane = lanes.get(key);
    if (e.cat === 'iteration') lane.iterations++, lane.iterationUs += e.dur;
    if (e.cat === 'loop') lane.group = e.args.group;
  }
  return [...lanes.values()].map((l) => ({...l,
    name: `${processName[l.pid]} (pid ${l.pid}), ${threadName[l.pid + ':' + l.tid]} (tid ${l.tid})`}));
}

// Shows the profile named `name`, as a click on its row of the toolbar's profile selector does (on mouse-up).
async function selectProfile(wd, name) {
  await wd.exec(`const row = Array.from(document.querySelectorAll('tr[title]'))
      .find((tr) => tr.getAttribute('title') === arguments[0]);
    row.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}))`, [name]);
}

// Two timelines stacked (speedscope shows one profile at a time): the top of each capture, toolbar, minimap and
// lanes, without the empty canvas below.
async function stackedScreenshot(wd, shots, file) {
  await wd.call('POST', wd.session + '/url', {url: 'about:blank'});
  await wd.exec(`document.body.style.margin = '0'; document.body.style.background = '#fff';
    for (const src of arguments[0]) {
      const img = document.createElement('img');
      img.src = 'data:image/png;base64,' + src;
      img.style.display = 'block';
      img.style.borderBottom = '2px solid #888';
      document.body.appendChild(img);
    }`, [shots]);
  await sleep(300);
  const height = shots.length * (SHOT_HEIGHT + 2);
  const shot = await wd.cdp('Page.captureScreenshot',
    {format: 'png', clip: {x: 0, y: 0, width: 1280, height, scale: 1}, captureBeyondViewport: true});
  fs.mkdirSync(path.dirname(file), {recursive: true});
  fs.writeFileSync(file, Buffer.from(shot.data, 'base64'));
}

runBrowserCases(async ({wd, tmp, record}) => {
  // A real sweep: rank 2 (group 1) takes 10 ms longer each iteration; its group's iterations drag.
  const work = fs.mkdtempSync(path.join(tmp, 'sweep-'));
  const traceFile = path.join(work, 'slow.trace.json');
  childProcess.execFileSync(COMMBENCH, ['sweep', '--groups', '2', '--sizes', '400', '--time-budget', '0.1',
    '--test-only-slow-rank', `2:${SLOW_US}`, '-q', '--out', path.join(work, 'slow.json'), '--trace', traceFile],
  {stdio: ['ignore', 'ignore', 'pipe']});
  const trace = JSON.parse(fs.readFileSync(traceFile, 'utf8'));
  const expected = expectedProfiles(trace);

  // Speedscope's offline loading, as its CLI does it: a script that hands it the file, named in the URL's hash.
  const script = path.join(work, 'profile.js');
  fs.writeFileSync(script, 'speedscope.loadFileFromBase64(' + JSON.stringify('slow.trace.json') + ', ' +
    JSON.stringify(fs.readFileSync(traceFile).toString('base64')) + ')');
  const url = 'file://' + INDEX + '#view=sandwich&localProfilePath=' + script;
  await prepareLoad(wd);
  await wd.call('POST', wd.session + '/url', {url});
  let title = '';
  for (let i = 0; i < 100 && title !== 'slow.trace.json - speedscope'; i++) {
    await sleep(100);
    title = await wd.exec('return document.title');
  }

  const failures = [];
  if (title !== 'slow.trace.json - speedscope') failures.push('not loaded: title ' + JSON.stringify(title));
  let importedAs = '';
  for (const entry of await wd.logs('browser')) {
    if (/Importing as (.*) profile/.test(entry.message)) importedAs = /Importing as (.*) profile/.exec(entry.message)[1];
    if (entry.level === 'SEVERE' || /Tried to end|still open at end/.test(entry.message)) {
      failures.push('console ' + entry.level + ': ' + entry.message.slice(0, 300));
    }
  }
  if (importedAs !== 'Trace Event Format') failures.push('not imported as Trace Event Format: ' + (importedAs || 'none'));
  const dir = 'file://' + path.dirname(INDEX) + '/';
  for (const entry of await wd.logs('performance')) {
    const msg = JSON.parse(entry.message).message;
    if (msg.method === 'Network.requestWillBeSent') {
      const u = msg.params.request.url;
      if (!u.startsWith(dir) && u !== 'file://' + script) failures.push('request outside the viewer: ' + u.slice(0, 120));
    }
    if (msg.method === 'Network.loadingFailed') failures.push('failed request: ' + msg.params.errorText);
  }
  record('speedscope imports the trace', failures, `(${importedAs}, ${trace.traceEvents.length} events)`);

  // The profile list (the toolbar's selector): one row per lane, named by the trace's metadata.
  const profiles = await wd.exec(`return Array.from(document.querySelectorAll('tr[title]'))
    .map((tr) => tr.getAttribute('title'))`);
  const names = expected.map((p) => p.name);
  const nameFailures = [];
  for (const n of names) if (!profiles.includes(n)) nameFailures.push('no profile ' + JSON.stringify(n));
  if (profiles.length !== names.length) nameFailures.push(`${profiles.length} profiles, ${names.length} lanes`);
  record('one profile per rank lane, named rank R (host H, group G)', nameFailures, `(${profiles.length}: ` +
    profiles.slice(0, 2).join('; ') + ' ...)');

  // Per rank: the sandwich view's totals (the viewer's own sums of what it parsed). A tall viewport, so that its
  // list renders every row.
  await wd.cdp('Emulation.setDeviceMetricsOverride', {width: 1280, height: 3000, deviceScaleFactor: 1, mobile: false});
  const laneFailures = [], slow = [], fast = [];
  for (const lane of expected.filter((p) => p.group !== null)) {
    await selectProfile(wd, lane.name);
    let rows = [];
    for (let i = 0; i < 50; i++) {
      await sleep(100);
      // Once the toolbar's title is this profile's, "NAME (k/N)" (the selector's rows hold the bare names).
      const shown = await wd.exec(`const title = arguments[0] + ' (';
        if (!Array.from(document.querySelectorAll('span')).some((s) => s.innerText.startsWith(title) &&
            /[(]\\d+[/]\\d+[)]$/.test(s.innerText))) {
          return null;
        }
        // The sandwich view's header (Total, Self, Symbol Name) is a table of its own; the rows are the next one.
        const tables = Array.from(document.querySelectorAll('table'));
        const header = tables.findIndex((t) => /Symbol Name/.test(t.innerText));
        const body = header >= 0 ? tables[header + 1] : null;
        return body ? Array.from(body.rows).map((r) => Array.from(r.cells).map((c) => c.innerText)) : null`,
      [lane.name]);
      if (shown && shown.length > 1) { rows = shown; break; }
    }
    const iterations = rows.filter((r) => /^iteration \d+$/.test(r[2]));
    const us = iterations.reduce((s, r) => s + parseDuration(r[0]), 0);
    if (iterations.length !== lane.iterations) {
      laneFailures.push(`${lane.name}: ${iterations.length} iterations shown, ${lane.iterations} in the trace`);
    }
    // Speedscope prints 2 decimals: 1 % covers its rounding of each row.
    if (!(Math.abs(us - lane.iterationUs) <= 0.01 * lane.iterationUs)) {
      laneFailures.push(`${lane.name}: iterations total ${us.toFixed(1)} us shown, ${lane.iterationUs.toFixed(1)} us in the trace`);
    }
    (lane.group === SLOW_GROUP ? slow : fast).push(us);
  }
  await wd.cdp('Emulation.clearDeviceMetricsOverride');
  // The plant is a floor no load removes from the slowed rank's own lane (each of its iterations waits out 10 ms);
  // its group's other rank waits for it only as far as the two overlap, and the fast group's lanes have no floor:
  // on a busy runner their waits for a CPU brought them to two thirds of the slow ones' (a core held by another
  // job: 230 ms against 350 ms), so only the order is asked of them.
  const slowLanes = expected.filter((lane) => lane.group === SLOW_GROUP);
  const floorUs = slowLanes.length ? 0.95 * Math.min(...slowLanes.map((lane) => lane.iterations)) * SLOW_US : 0;
  if (!slow.length || !fast.length || Math.max(...slow) < floorUs || Math.min(...slow) <= Math.max(...fast)) {
    laneFailures.push(`group ${SLOW_GROUP}'s iterations total ${slow.map(Math.round)} us (at least ` +
      `${Math.round(floorUs)} us planted), the others' ${fast.map(Math.round)} us`);
  }
  record('the straggler group\'s lanes are the longer ones in the viewer', laneFailures,
    `(iterations per rank, as speedscope sums them: group ${SLOW_GROUP} ${slow.map((x) => (x / 1e3).toFixed(1))} ms, ` +
    `group 0 ${fast.map((x) => (x / 1e3).toFixed(1))} ms)`);

  if (SHOT) {
    // The time-ordered view of the first fast rank and the first slow one.
    const pick = [expected.find((p) => p.group === 0), expected.find((p) => p.group === SLOW_GROUP)];
    const shots = [];
    // Speedscope's key 1: the time-ordered view.
    await wd.exec(`window.dispatchEvent(new KeyboardEvent('keypress', {key: '1'}))`);
    for (const lane of pick) {
      await selectProfile(wd, lane.name);
      await sleep(1000);
      const shot = await wd.cdp('Page.captureScreenshot',
        {format: 'png', clip: {x: 0, y: 0, width: 1280, height: SHOT_HEIGHT, scale: 1}});
      shots.push(shot.data);
    }
    await stackedScreenshot(wd, shots, SHOT);
    console.log('screenshot: ' + (flag('--screenshot') ? SHOT : path.basename(SHOT) + ' in outputs.zip'));
  }
});
