// Browser end-to-end check: a person signs up, verifies their email through the development
// mailbox, signs in, generates speech, hears it in the global player, finds it in the history
// and downloads it. Headless Chromium driven by playwright-core.
//
//   TIMBRE_BASE_URL=http://127.0.0.1:8080 node e2e/browser.mjs
//
// Optional: CHROMIUM_PATH (default /usr/bin/chromium), TIMBRE_SCREENSHOTS (default
// e2e/screenshots), HEADED=1. Prints one JSON line per step and exits 1 on failure, after a
// screenshot of the page as it was (failure.png). Normally run by browser_test.go.
import { chromium } from 'playwright-core';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { finishOnboarding } from './onboarding.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const baseUrl = (process.env.TIMBRE_BASE_URL ?? '').replace(/\/$/, '');
if (!baseUrl) {
  console.error('set TIMBRE_BASE_URL');
  process.exit(2);
}
const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const shots = process.env.TIMBRE_SCREENSHOTS || join(here, 'screenshots');
mkdirSync(shots, { recursive: true });

const email = `e2e-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}@example.com`;
const password = 'Velvet-Compass-Rhubarb-83';
const VOICE = 'Brian'; // an espeak-ng voice: synthesized by the engine's worker processes
const TEXT =
  'Welcome to Timbre. This sentence was typed by a headless browser, turned into speech, and played back in the global player.';

const emit = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
class CheckError extends Error {}
function assert(cond, msg) {
  if (!cond) throw new CheckError(msg);
}

function looksLikeMp3(buf) {
  if (buf.length < 4) return false;
  let off = 0;
  if (buf.subarray(0, 3).toString('latin1') === 'ID3') {
    if (buf.length < 10) return false;
    const size = ((buf[6] & 0x7f) << 21) | ((buf[7] & 0x7f) << 14) | ((buf[8] & 0x7f) << 7) | (buf[9] & 0x7f);
    off = 10 + size;
    if (off + 2 > buf.length) return false;
  }
  return buf[off] === 0xff && (buf[off + 1] & 0xe0) === 0xe0;
}
function assertMp3(bytes, what) {
  assert(bytes.length > 1000, `${what}: only ${bytes.length} bytes`);
  assert(looksLikeMp3(bytes), `${what}: not MP3 (first bytes ${bytes.subarray(0, 8).toString('hex')})`);
}

const browser = await chromium.launch({
  executablePath,
  headless: !process.env.HEADED,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--autoplay-policy=no-user-gesture-required',
  ], // launch() gives every run a fresh temporary profile
});
const context = await browser.newContext({ baseURL: baseUrl, acceptDownloads: true, viewport: { width: 1440, height: 900 } });
context.setDefaultTimeout(20_000);
const page = await context.newPage();

const pageErrors = [];
const consoleErrors = [];
page.on('pageerror', (err) => pageErrors.push(String(err?.stack ?? err)));
page.on('console', (msg) => {
  if (msg.type() === 'error') consoleErrors.push(msg.text());
});
const failedResponses = [];
page.on('response', (r) => {
  if (r.status() >= 500) failedResponses.push(`${r.request().method()} ${r.url()} → ${r.status()}`);
});

const reported = new WeakSet(); // errors a step already printed
async function step(name, fn) {
  const start = Date.now();
  try {
    const detail = await fn();
    emit({ step: name, ok: true, ms: Date.now() - start, ...(detail === undefined ? {} : { detail }) });
    return detail;
  } catch (err) {
    emit({ step: name, ok: false, ms: Date.now() - start, url: page.url(), error: String(err?.message ?? err).replace(/\u001b\[[0-9;]*m/g, '') });
    reported.add(err);
    throw err;
  }
}

let ok = false;
try {
  emit({ info: 'browser', version: browser.version(), baseUrl, email });

  await step('sign up at /app/sign-up', async () => {
    await page.goto('/app/sign-up');
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.locator('input[name="email"]').fill(email);
    await page.locator('input[name="password"]').fill(password);
    await page.getByLabel(/I agree to the Terms/).check();
    await page.getByRole('button', { name: 'Sign up', exact: true }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await page.getByText(email).waitFor();
  });

  const verifyLink = await step('read the verification mail in the development mailbox', async () => {
    // The API first: the message for this address, with the verification link.
    const res = await page.request.get('/api/dev/mailbox');
    assert(res.ok(), `GET /api/dev/mailbox → ${res.status()}`);
    const { messages } = await res.json();
    const mail = messages.find((m) => m.to === email || String(m.to).includes(email));
    assert(mail, `no mail to ${email} among ${messages.length} message(s)`);
    const body = `${mail.text ?? ''} ${mail.html ?? ''}`;
    const m = /(https?:\/\/[^\s"'<>]*)?\/app\/action\?mode=verifyEmail&(?:amp;)?oobCode=[^\s"'<>&]+[^\s"'<>]*/.exec(body);
    assert(m, `no verification link in the mail: ${body.slice(0, 300)}`);
    // Then the page a person would open, which must show the same link.
    await page.getByRole('link', { name: 'development mailbox' }).click();
    await page.waitForURL('**/app/dev/mailbox');
    await page.getByRole('heading', { name: 'Development mailbox' }).waitFor();
    const link = page.locator('article', { hasText: email }).locator('a[href*="mode=verifyEmail"]').first();
    await link.waitFor();
    const href = await link.getAttribute('href');
    assert(href && href.includes('oobCode='), `link on the mailbox page: ${href}`);
    return { subject: mail.subject, href };
  });

  await step('follow the verification link', async () => {
    const url = new URL(verifyLink.href, baseUrl);
    assert(url.origin === new URL(baseUrl).origin, `the link points elsewhere (${url.origin}): the public URL is wrong`);
    await page.locator('article', { hasText: email }).locator('a[href*="mode=verifyEmail"]').first().click();
    await page.waitForURL('**/app/action?**');
    const dialog = page.getByRole('dialog', { name: 'Email Verification' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/app/sign-in**');
  });

  await step('sign in at /app/sign-in', async () => {
    await page.getByRole('heading', { name: 'Welcome back' }).waitFor();
    await page.locator('input[name="email"]').fill(email);
    await page.locator('input[name="password"]').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/app\/(speech-synthesis\/text-to-speech|onboarding)/);
    const session = await page.request.get('/api/auth/session');
    assert(session.ok(), `GET /api/auth/session → ${session.status()}`);
    const s = await session.json();
    assert(s.email === email && s.email_verified === true, `session ${JSON.stringify(s)}`);
    return { workspace_id: s.workspace_id };
  });

  await step('a new account answers the onboarding survey first', async () => {
    assert(await finishOnboarding(page), 'the onboarding survey was not shown to a new account');
    const user = await page.request.get('/v1/user');
    assert(user.ok(), `GET /v1/user → ${user.status()}`);
    const u = await user.json();
    assert(u.is_onboarding_completed === true && u.first_name === 'Ada', `after the survey: ${JSON.stringify({ c: u.is_onboarding_completed, n: u.first_name })}`);
  });

  await step('type text and pick a voice', async () => {
    if (!page.url().endsWith('/app/speech-synthesis/text-to-speech')) await page.goto('/app/speech-synthesis/text-to-speech');
    await page.getByRole('heading', { name: 'Text to Speech' }).waitFor();
    await page.getByLabel('Text', { exact: true }).fill(TEXT);
    await page.getByTestId('character-count').filter({ hasText: `${TEXT.length} /` }).waitFor();
    const trigger = page.getByLabel('Voice', { exact: true });
    await trigger.click();
    const dialog = page.getByRole('dialog', { name: 'Select a voice' });
    await dialog.waitFor();
    await dialog.getByRole('searchbox').fill(VOICE);
    await dialog.getByRole('option').filter({ hasText: VOICE }).first().getByRole('button').first().click();
    await dialog.waitFor({ state: 'hidden' });
    await page.waitForFunction(
      ([sel, name]) => document.getElementById(sel)?.textContent?.includes(name),
      [await trigger.getAttribute('id'), VOICE],
    );
  });

  const generated = await step('generate speech; the global player plays it', async () => {
    const ttsResponse = page.waitForResponse(
      (r) => r.request().method() === 'POST' && /\/v1\/text-to-speech\/[^/?]+(\/stream)?(\?|$)/.test(r.url()),
    );
    await page.getByRole('button', { name: 'Generate speech' }).click();
    const res = await ttsResponse;
    assert(res.status() === 200, `POST ${res.url()} → ${res.status()}: ${(await res.text()).slice(0, 300)}`);
    const historyItemId = res.headers()['history-item-id'];
    assert(historyItemId, 'no history-item-id header on the TTS response');
    const player = page.getByTestId('player');
    await player.waitFor();
    await player.filter({ hasText: VOICE }).waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="player"]')?.getAttribute('data-state') === 'playing');
    const audio = page.getByTestId('player-audio');
    const t1 = await audio.evaluate((a) => a.currentTime);
    // Read currentTime again once it has moved on (within a few seconds, even on a busy machine).
    await audio
      .evaluate((a, from) => new Promise((resolve) => {
        const done = () => a.currentTime >= from + 0.5 || a.ended || a.error;
        if (done()) return resolve();
        const timer = setTimeout(resolve, 6000);
        a.addEventListener('timeupdate', function on() {
          if (!done()) return;
          clearTimeout(timer);
          a.removeEventListener('timeupdate', on);
          resolve();
        });
      }), t1);
    const t2 = await audio.evaluate((a) => a.currentTime);
    const state = await audio.evaluate((a) => ({ paused: a.paused, duration: a.duration, error: a.error?.message ?? null }));
    assert(!state.error, `audio element error: ${state.error}`);
    assert(t2 > t1 + 0.5, `currentTime did not advance: ${t1} → ${t2} (${JSON.stringify(state)})`);
    const timeText = (await page.getByTestId('player-time').textContent())?.trim();
    return { historyItemId, currentTime: [t1, t2], duration: state.duration, playerTime: timeText };
  });

  await step('the generation is in the history list', async () => {
    await page.getByRole('tab', { name: 'history' }).click();
    await page.waitForURL('**/text-to-speech/history');
    const row = page.getByTestId('history-item').filter({ hasText: TEXT.slice(0, 40) });
    await row.first().waitFor();
    const text = await row.first().textContent();
    assert(text.includes(VOICE), `history row lacks the voice name: ${text}`);
    const list = await (await page.request.get('/v1/history?page_size=10')).json();
    assert(
      list.history.some((h) => h.history_item_id === generated.historyItemId && h.text === TEXT),
      `GET /v1/history lacks ${generated.historyItemId}`,
    );
    return { rows: await page.getByTestId('history-item').count() };
  });

  await step('download it from the history list', async () => {
    const row = page.getByTestId('history-item').filter({ hasText: TEXT.slice(0, 40) }).first();
    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: 'Download' }).click()]);
    const path = await download.path();
    const bytes = readFileSync(path);
    assertMp3(bytes, `download ${download.suggestedFilename()}`);
    assert(/\.mp3$/.test(download.suggestedFilename()), `file name ${download.suggestedFilename()}`);
    // The download route itself, with the session cookie and CSRF token as the app sends them.
    const csrf = (await context.cookies()).find((c) => c.name === 'xi_website_csrf')?.value;
    assert(csrf, 'no xi_website_csrf cookie');
    const res = await page.request.post('/v1/history/download', {
      data: { history_item_ids: [generated.historyItemId] },
      headers: { 'X-CSRF-Token': csrf },
    });
    assert(res.ok(), `POST /v1/history/download → ${res.status()}: ${(await res.text()).slice(0, 300)}`);
    const routeBytes = Buffer.from(await res.body());
    assertMp3(routeBytes, 'POST /v1/history/download');
    return { file: download.suggestedFilename(), bytes: bytes.length, routeBytes: routeBytes.length };
  });

  await step('screenshot', async () => {
    await page.waitForTimeout(300); // let the toast and player settle
    const file = join(shots, 'text-to-speech.png');
    await page.screenshot({ path: file });
    return { file };
  });

  assert(pageErrors.length === 0, `uncaught page errors: ${pageErrors.join(' | ')}`);
  assert(failedResponses.length === 0, `server errors: ${failedResponses.join(' | ')}`);
  ok = true;
} catch (err) {
  if (!(err instanceof Object) || !reported.has(err)) {
    emit({ step: 'final checks', ok: false, error: err instanceof CheckError ? err.message : (err?.stack ?? String(err)) });
  }
  if (pageErrors.length || failedResponses.length) emit({ pageErrors, failedResponses });
  try {
    const file = join(shots, 'failure.png');
    await page.screenshot({ path: file, fullPage: true });
    emit({ screenshot: file, url: page.url() });
  } catch {
    /* the page may be gone */
  }
} finally {
  if (consoleErrors.length) emit({ consoleErrors: consoleErrors.slice(0, 20) });
  await context.close().catch(() => {});
  await browser.close().catch(() => {});
}
console.log(`browser: ${ok ? 'all steps passed' : 'failed'}`);
process.exit(ok ? 0 : 1);
