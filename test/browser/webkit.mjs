// Engine adapter (see engines.mjs): WebKitGTK's MiniBrowser (in Debian's
// libwebkit2gtk-4.1-0) driven through WebKitWebDriver (webkit2gtk-driver)
// with selenium-webdriver, on an Xvfb display of its own when there is no
// DISPLAY.  Under --automation MiniBrowser keeps no data on disk (so no
// profile, nothing to scan), and WebKit outside Apple's ports has no OPFS
// sync access handles: here the package must take its memory path and say
// why OPFS is not there.  Classic WebDriver gives no console or page error
// events.
import { Builder } from 'selenium-webdriver';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

export const name = 'webkit';
const DRIVER = process.env.WEBKIT_WEBDRIVER || '/usr/bin/WebKitWebDriver';
const MINIBROWSER = process.env.MINIBROWSER ||
  ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib'].map((d) => `${d}/webkit2gtk-4.1/MiniBrowser`).find((p) => fs.existsSync(p));
const XVFB = '/usr/bin/Xvfb';
const FEATURES = '--features=+StorageAPI,+FileSystem,+AccessHandle,+StorageAPIEstimate,+FileSystemWritableStream';
const NO_SYNC_HANDLES = 'WebKitGTK has no OPFS sync access handles (createSyncAccessHandle() rejects with NotSupportedError), and under --automation navigator.storage.getDirectory() rejects';

export const caps = {
  opfs: NO_SYNC_HANDLES,
  quota: NO_SYNC_HANDLES,
  initScript: false,
  events: false,
};

export function missing() {
  if (!fs.existsSync(DRIVER)) return `${DRIVER} is not installed (apt-get install webkit2gtk-driver)`;
  if (!MINIBROWSER) return 'MiniBrowser not found (it comes with libwebkit2gtk-4.1-0)';
  if (!process.env.DISPLAY && !fs.existsSync(XVFB)) return `no DISPLAY and no ${XVFB} (apt-get install xvfb)`;
  return null;
}

export function opfsDir() { return null; }

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer().once('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// An X display: $DISPLAY, or a new Xvfb that picks a free display number.
async function display() {
  if (process.env.DISPLAY) return { display: process.env.DISPLAY, stop() {} };
  const x = spawn(XVFB, ['-displayfd', '3', '-screen', '0', '1600x1200x24', '-nolisten', 'tcp'],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let err = '';
  x.stderr.on('data', (d) => { err += d; });
  const num = await new Promise((resolve, reject) => {
    let out = '';
    x.stdio[3].on('data', (d) => { out += d; if (out.includes('\n')) resolve(out.trim()); });
    x.once('exit', (code) => reject(new Error(`Xvfb exited (${code}): ${err.slice(-500)}`)));
  });
  return { display: `:${num}`, stop() { x.kill(); } };
}

async function waitForPort(port, ms = 10000) {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const c = net.connect(port, '127.0.0.1', () => { c.end(); resolve(true); }).once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`WebKitWebDriver did not listen on port ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function start(profile, { viewport = { width: 1280, height: 800 } } = {}) {
  const x = await display();
  const port = await freePort();
  const wd = spawn(DRIVER, [`--port=${port}`], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DISPLAY: x.display } });
  let d;
  try {
    await waitForPort(port);
    d = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities({
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation', FEATURES] },
    }).build();
    await d.manage().setTimeouts({ script: 600000, pageLoad: 60000 });
    await d.manage().window().setRect({ width: viewport.width, height: viewport.height });
  } catch (e) {
    wd.kill(); x.stop();
    throw e;
  }
  const version = `WebKitGTK ${(await d.getCapabilities()).get('browserVersion')} (MiniBrowser)`;
  // One window is current at a time: every call switches to its page's
  // window first, one call at a time.
  let current = await d.getWindowHandle();
  let first = current;
  let queue = Promise.resolve();
  const serial = (fn) => { const p = queue.then(fn, fn); queue = p.catch(() => {}); return p; };
  const pageDriver = (handle) => {
    const use = async () => { if (current !== handle) { await d.switchTo().window(handle); current = handle; } };
    return {
      evalSource: (src) => serial(async () => {
        await use();
        return d.executeAsyncScript(`const done = arguments[arguments.length - 1]; (${src}).then(done);`);
      }),
      goto: (url) => serial(async () => { await use(); await d.get(url); }),
      reload: () => serial(async () => { await use(); await d.navigate().refresh(); }),
      screenshot: () => serial(async () => { await use(); return Buffer.from(await d.takeScreenshot(), 'base64'); }),
      close: () => serial(async () => {
        await use();
        const left = (await d.getAllWindowHandles()).filter((h) => h !== handle);
        if (left.length === 0) { await d.get('about:blank'); return; }   // keep the session
        await d.close();
        current = left[0];
        await d.switchTo().window(current);
      }),
    };
  };
  return {
    version,
    newPage: () => serial(async () => {
      if (first) { const h = first; first = null; return pageDriver(h); }
      await d.switchTo().newWindow('tab');
      current = await d.getWindowHandle();
      return pageDriver(current);
    }),
    async close() {
      try { await d.quit(); } finally { wd.kill(); x.stop(); }
    },
  };
}
