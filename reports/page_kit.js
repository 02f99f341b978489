// What both pages share, the scaling report (report.js) and the comparison (comparison.js): DOM built with text
// only (never innerHTML: every string shown comes from a file), number checks, axis scales, and the chart frame
// that records in the page's state what it drew or why not (the browser tests read it). Sets window.commbenchKit.
(function () {
  'use strict';

  // Bidi controls from a file (a host name) would reorder the page's text around them: shown as visible text,
  // "\u202e", as lib/core/html_text.h writes them in markup.
  const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  const visible = (s) => String(s).replace(BIDI, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') node.className = v;
      else node.setAttribute(k, typeof v === 'string' ? visible(v) : v);
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === 'string' ? document.createTextNode(visible(child)) : child);
    }
    return node;
  }
  const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
  const uniq = (xs) => Array.from(new Set(xs));

  function fmtBytes(b) {
    if (!isNum(b)) return b === undefined || b === null ? '' : String(b);
    const units = [['GiB', 1 << 30], ['MiB', 1 << 20], ['KiB', 1 << 10]];
    for (const [u, n] of units) if (b >= n && b % n === 0) return b / n + ' ' + u;
    if (b >= 1e6) return (b / 1e6).toPrecision(3) + ' MB';
    if (b >= 1e4) return (b / 1e3).toPrecision(3) + ' kB';
    return b + ' B';
  }
  // Log axes where the values span more than a decade (sizes and times usually do).
  function scaleFor(values) {
    const pos = values.filter((v) => isNum(v) && v > 0);
    if (pos.length < 2) return {type: 'linear', zero: false};
    return Math.max(...pos) / Math.min(...pos) > 10 ? {type: 'log'} : {type: 'linear', zero: false};
  }

  // addChart(id, title, why, build[, parent]) for a page whose `state` records its charts and errors: `build`
  // returns {spec, rows, note}, {skip: reason} or throws; a chart is drawn, or says in the page why not.
  function chartAdder(state, label, defaultParent) {
    return function addChart(id, title, why, build, parent) {
      const box = el('div', {class: 'chart', id: id});
      box.appendChild(el('h2', {}, title));
      (parent || defaultParent()).appendChild(box);
      const record = {id, title, status: 'pending'};
      state.charts.push(record);
      let built;
      try {
        built = build();
      } catch (e) {
        built = {error: e};
      }
      if (built.error) {
        record.status = 'error';
        state.errors.push(id + ': ' + built.error.message);
        console.error(label + ': ' + id, built.error);
        box.appendChild(el('p', {class: 'error'}, 'This chart could not be built: ' + built.error.message));
        return Promise.resolve();
      }
      if (built.skip) {
        record.status = 'skipped';
        record.reason = built.skip;
        box.appendChild(el('p', {class: 'skipped'}, 'Not shown: ' + built.skip));
        return Promise.resolve();
      }
      box.appendChild(el('p', {class: 'why'}, why + (built.note ? ' ' + built.note : '')));
      // vega-embed makes its target an inline-block as wide as the chart; the outer div scrolls, not the page.
      const view = el('div', {class: 'view'});
      box.appendChild(el('div', {class: 'scroll'}, view));
      return vegaEmbed(view, built.spec, {
        mode: 'vega-lite', renderer: 'svg', actions: false, tooltip: {theme: 'light'},
      }).then((result) => {
        record.status = 'drawn';
        record.rows = built.rows;
        record.view = result.view;
      }).catch((e) => {
        record.status = 'error';
        state.errors.push(id + ': ' + e.message);
        console.error(label + ': ' + id, e);
        view.appendChild(el('p', {class: 'error'}, 'This chart could not be drawn: ' + e.message));
      });
    };
  }

  window.commbenchKit = {el, visible, isNum, uniq, fmtBytes, scaleFor, chartAdder};
})();
