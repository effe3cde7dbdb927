// Drives the built app (served by scripts/mock-server.mjs) in Debian's
// Chromium and saves screenshots to web/screenshots/. Development aid:
//   node scripts/mock-server.mjs 5175 &  node scripts/screenshots.mjs http://127.0.0.1:5175
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

const base = process.argv[2] ?? 'http://127.0.0.1:5175';
const out = new URL('../screenshots/', import.meta.url).pathname;
mkdirSync(out, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--autoplay-policy=no-user-gesture-required'],
});
const errors = [];
const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
const page = await context.newPage();
page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
const shot = (name) => page.screenshot({ path: `${out}${name}.png` });

// Sign-up: terms error, then success, then verify through the dev mailbox.
await page.goto(`${base}/app/sign-up`);
await page.getByLabel('Email', { exact: true }).fill('new@timbre.dev');
await page.getByLabel('Password', { exact: true }).fill('password123');
await page.getByRole('button', { name: 'Sign up' }).click();
await page.getByRole('tooltip').waitFor();
await shot('01-sign-up-terms-error');
await page.getByLabel(/I agree/).check();
await page.getByRole('button', { name: 'Sign up' }).click();
await page.getByRole('heading', { name: 'Check your email' }).waitFor();
await page.getByRole('link', { name: 'development mailbox' }).waitFor();
await shot('02-check-email');
await page.getByRole('link', { name: 'development mailbox' }).click();
await page.getByText('Verify your email for Timbre').first().waitFor();
await shot('03-dev-mailbox');
await page.locator('a[href*="mode=verifyEmail"]').first().click();
await page.getByText('Email verified successfully! Please sign back in to continue.').waitFor();
await shot('04-email-verified');
await page.getByRole('button', { name: 'Sign in' }).click();

// Sign-in with redirect.
await page.waitForURL('**/app/sign-in**');
await page.getByLabel('Email', { exact: true }).fill('new@timbre.dev');
await page.getByLabel('Password', { exact: true }).fill('password123');
await shot('05-sign-in');
await page.getByRole('button', { name: 'Sign in' }).click();
await page.waitForURL('**/app/speech-synthesis/text-to-speech');
await page.getByLabel('Voice', { exact: true }).filter({ hasText: 'Rachel' }).waitFor();

// TTS: type, generate, player.
await page.getByLabel('Text', { exact: true }).fill('Hello from Timbre! This is a quick test of the text to speech page, with the global player at the bottom.');
await page.getByRole('button', { name: 'Generate speech' }).click();
await page.getByTestId('player').waitFor();
await page.waitForTimeout(1200);
await shot('06-tts-generated');
await page.getByLabel('Voice', { exact: true }).click();
await page.getByRole('dialog').waitFor();
await shot('07-voice-picker');
await page.keyboard.press('Escape');

// History tab, feedback, share.
await page.getByRole('tab', { name: 'history' }).click();
await page.getByTestId('history-item').first().waitFor();
await shot('08-history');
await page.getByTestId('history-item').first().getByRole('button', { name: 'Thumbs down' }).click();
await page.getByLabel('Glitches').check();
await page.getByLabel('Feedback', { exact: true }).fill('too short');
await page.getByRole('button', { name: 'Submit feedback' }).click();
await page.getByText('Feedback must be at least 20 characters.').waitFor();
await shot('09-feedback-too-short');
await page.keyboard.press('Escape');
await page.getByTestId('history-item').first().getByRole('button', { name: 'Share' }).click();
await page.getByTestId('share-link').waitFor();
await shot('10-share');
const shareHref = await page.getByTestId('share-link').getAttribute('href');
await page.keyboard.press('Escape');

// Keyboard: space toggles the player when not typing.
await page.locator('body').click({ position: { x: 700, y: 20 } });
const before = await page.getByTestId('player').getAttribute('data-state');
await page.keyboard.press('Space');
await page.waitForTimeout(300);
const after = await page.getByTestId('player').getAttribute('data-state');
console.log(`player state via space: ${before} -> ${after}`);

// API keys.
await page.getByRole('link', { name: 'API keys' }).click();
await page.getByRole('button', { name: /Create API key/ }).click();
await page.getByLabel('Name', { exact: true }).fill('Laptop');
await page.getByRole('button', { name: 'Create', exact: true }).click();
await page.getByTestId('new-api-key').waitFor();
await shot('11-api-key-created');
await page.getByRole('button', { name: 'Done' }).click();

// Usage, dark theme.
await page.getByRole('link', { name: 'Usage', exact: true }).click();
await page.getByTestId('usage-summary').waitFor();
await page.getByRole('button', { name: 'Switch to dark theme' }).click();
await shot('12-usage-dark');
await page.goto(`${base}/app/speech-synthesis/text-to-speech`);
await page.getByLabel('Voice', { exact: true }).filter({ hasText: 'Rachel' }).waitFor();
await shot('13-tts-dark');

// Public share page (new context: not signed in).
const anon = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const sp = await anon.newPage();
await sp.goto(shareHref.replace(/^https?:\/\/[^/]+/, base));
await sp.getByText('Shared audio').waitFor();
await sp.screenshot({ path: `${out}14-share-public.png` });

// Mobile.
const mobile = await browser.newContext({ viewport: { width: 390, height: 844 }, storageState: await context.storageState() });
const mp = await mobile.newPage();
await mp.goto(`${base}/app/speech-synthesis/text-to-speech`);
await mp.getByLabel('Voice', { exact: true }).filter({ hasText: 'Rachel' }).waitFor();
await mp.screenshot({ path: `${out}15-mobile-tts.png` });
await mp.getByRole('button', { name: 'Open navigation' }).click();
await mp.waitForTimeout(300);
await mp.screenshot({ path: `${out}16-mobile-nav.png` });

// Sign out → sign-in page.
await page.getByRole('button', { name: 'User menu' }).first().click();
await page.getByRole('menuitem', { name: 'Sign out' }).click();
await page.waitForURL('**/app/sign-in');
await shot('17-signed-out');

await browser.close();
console.log(errors.length ? `errors:\n${errors.join('\n')}` : 'no page errors');
