// Headless Chromium for the page tests (browser_test.js: the scaling report; comparison_browser_test.js: the
// comparison page), driven through chromedriver's W3C WebDriver HTTP API with Node's built-in fetch, so no npm
// package is needed: only the Debian packages chromium and chromium-driver (reports/tools/setup.sh).
'use strict';

const childProcess = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const CHROMEDRIVER = process.env.CHROMEDRIVER || '/usr/bin/chromedriver';

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const {port} = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class WebDriver {
  constructor(base) { this.base = base; }
  async call(method, url, body) {
    const res = await fetch(this.base + url, {method, headers: {'Content-Type': 'application/json'},
      body: body === undefined ? undefined : JSON.stringify(body)});
    const json = await res.json();
    if (!res.ok) throw new Error(method + ' ' + url + ': ' + JSON.stringify(json.value).slice(0, 600));
    return json.value;
  }
  async start(userDataDir) {
    const value = await this.call('POST', '/session', {capabilities: {alwaysMatch: {
      browserName: 'chrome',
      'goog:chromeOptions': {binary: CHROMIUM, args: [
        '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
        '--disable-dev-shm-usage', '--user-data-dir=' + userDataDir, '--window-size=1280,1000',
        // Any request that escaped the page's Content-Security-Policy would go to a dead proxy and fail.
        '--proxy-server=http://127.0.0.1:9', '--proxy-bypass-list=<-loopback>',
      ]},
      'goog:loggingPrefs': {browser: 'ALL', performance: 'ALL'},
      // An alert() from injected markup would otherwise stop every later command; the injected element is what
      // the probe then reports.
      unhandledPromptBehavior: 'accept',
    }}});
    this.session = '/session/' + value.sessionId;
  }
  cdp(cmd, params) { return this.call('POST', this.session + '/goog/cdp/execute', {cmd, params: params || {}}); }
  exec(script, args) { return this.call('POST', this.session + '/execute/sync', {script, args: args || []}); }
  logs(type) { return this.call('POST', this.session + '/se/log', {type}); }
  quit() { return this.call('DELETE', this.session).catch(() => {}); }
}

// chromedriver on a port that was free a moment ago: another test (or a rank) may have taken it since. Then
// chromedriver says "bind() failed: Address already in use" and may go on listening on IPv6 alone, while
// 127.0.0.1:port is the other process's. Resolves with the running process, or null (it failed to bind, or
// exited) so that the caller tries another port.
async function spawnChromedriver(port, chromeTmp) {
  const driver = childProcess.spawn(CHROMEDRIVER, ['--port=' + port, '--allowed-ips=127.0.0.1'],
    {stdio: ['ignore', 'ignore', 'pipe'], env: {...process.env, TMPDIR: chromeTmp}});
  let failed = false;
  driver.on('exit', () => { failed = true; });
  driver.stderr.on('data', (chunk) => {
    process.stderr.write(chunk);
    if (/bind\(\) failed|Address already in use/.test(String(chunk))) failed = true;
  });
  for (let i = 0; ; i++) {  // wait until it listens; a foreign listener that never answers must not hang us
    if (failed) break;
    try {
      const res = await fetch('http://127.0.0.1:' + port + '/status', {signal: AbortSignal.timeout(2000)});
      await res.json();
      break;
    } catch (e) {
      if (i > 100) { driver.kill('SIGTERM'); throw e; }
    }
    await sleep(100);
  }
  await sleep(50);  // a bind failure said just after the first answer still counts
  if (!failed) return driver;
  driver.kill('SIGTERM');
  return null;
}

// Starts chromedriver and one browser session; `stop()` ends both and removes their temporary directories.
async function startBrowser() {
  const tmp = fs.mkdtempSync(path.join(process.env.TEST_TMPDIR || os.tmpdir(), 'browser-test-'));
  // Chromium makes a scoped_dir in $TMPDIR and may leave it: give it one of ours, removed below. A short path
  // under /tmp, because Chromium puts a Unix socket there (at most 107 bytes) and Bazel's TEST_TMPDIR is long.
  const chromeTmp = fs.mkdtempSync('/tmp/cb-chrome-');
  let driver = null;
  let wd = null;
  const stop = async () => {
    if (wd && wd.session) await wd.quit();
    if (driver) driver.kill('SIGTERM');
    fs.rmSync(tmp, {recursive: true, force: true});  // the Chromium profile, when run outside Bazel's TEST_TMPDIR
    fs.rmSync(chromeTmp, {recursive: true, force: true});
  };
  try {
    for (let attempt = 1; !driver; attempt++) {
      const port = await freePort();
      driver = await spawnChromedriver(port, chromeTmp);
      if (driver) wd = new WebDriver('http://127.0.0.1:' + port);
      else if (attempt >= 5) throw new Error('chromedriver exited before it listened, on 5 ports in turn');
    }
    await wd.start(path.join(tmp, 'profile'));
  } catch (e) {
    await stop();
    throw e;
  }
  return {wd, tmp, stop};
}

// Before loading a page: network emulated offline, and the logs of earlier pages dropped.
async function prepareLoad(wd) {
  await wd.cdp('Network.enable');
  await wd.cdp('Network.emulateNetworkConditions', {offline: true, latency: 0, downloadThroughput: -1,
    uploadThroughput: -1});
  await wd.logs('browser');
  await wd.logs('performance');
}

// After a page: any console error or uncaught exception (Chromium reports both as SEVERE), and any request
// other than the page itself, failed or not.
async function consoleAndNetworkFailures(wd, url) {
  const failures = [];
  for (const entry of await wd.logs('browser')) {
    if (entry.level === 'SEVERE') failures.push('console: ' + entry.message);
  }
  for (const entry of await wd.logs('performance')) {
    const msg = JSON.parse(entry.message).message;
    if (msg.method === 'Network.requestWillBeSent' && msg.params.request.url !== url) {
      failures.push('network request: ' + msg.params.request.url.slice(0, 120));
    }
    if (msg.method === 'Network.loadingFailed') failures.push('failed request: ' + msg.params.errorText);
  }
  return failures;
}

// A full-page screenshot, 1280 px wide, written to `file`.
async function screenshot(wd, file) {
  const metrics = await wd.cdp('Page.getLayoutMetrics');
  const height = Math.ceil((metrics.cssContentSize || metrics.contentSize).height);
  await wd.cdp('Emulation.setDeviceMetricsOverride', {width: 1280, height, deviceScaleFactor: 1, mobile: false});
  const shot = await wd.cdp('Page.captureScreenshot', {format: 'png', captureBeyondViewport: true});
  await wd.cdp('Emulation.clearDeviceMetricsOverride');
  fs.mkdirSync(path.dirname(file), {recursive: true});
  fs.writeFileSync(file, Buffer.from(shot.data, 'base64'));
}

// The frame of every browser test: starts the browser, runs `body({wd, tmp, record})`, where record(name,
// failures, detail) prints one PASS or FAIL line and counts it, stops the browser, prints "N passed, M failed"
// and exits with its status. A throw anywhere counts as one failure.
function runBrowserCases(body) {
  (async () => {
    const {wd, tmp, stop} = await startBrowser();
    let passed = 0, failed = 0;
    const record = (name, failures, detail) => {
      if (failures.length) {
        failed++;
        console.log('FAIL ' + name + '\n  ' + failures.join('\n  '));
      } else {
        passed++;
        console.log('PASS ' + name + (detail ? ' ' + detail : ''));
      }
    };
    try {
      await body({wd, tmp, record});
    } finally {
      await stop();
    }
    console.log(passed + ' passed, ' + failed + ' failed');
    process.exit(failed ? 1 : 0);
  })().catch((e) => {
    console.log('FAIL: ' + e.stack);
    console.log('0 passed, 1 failed');
    process.exit(1);
  });
}

module.exports = {WebDriver, freePort, sleep, startBrowser, prepareLoad, consoleAndNetworkFailures, screenshot,
  runBrowserCases};
