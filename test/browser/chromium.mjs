// Headless Chromium for the browser tests and the demo driver: Debian's
// chromium through playwright-core, each run on a fresh profile under a
// build directory.  No side effects on import.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// A new, empty profile directory dir/profile-<tag>-XXXXXX.
export function freshProfile(dir, tag) {
  fs.mkdirSync(dir, { recursive: true });
  return fs.mkdtempSync(path.join(dir, `profile-${tag}-`));
}

// A persistent browser context on `profile`; `options` go to
// launchPersistentContext (e.g. viewport).
export function launch(profile, options = {}) {
  return chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS, ...options,
  });
}
