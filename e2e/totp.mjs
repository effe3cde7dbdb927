// Two-factor authentication, in headless Chromium: a user enrols TOTP from
// /app/settings/security?dialog=add-2fa (reading the secret's text as a person who can't scan the
// QR code does), confirms it with a code computed here (RFC 6238 on node:crypto), saves the
// backup codes (download), signs out, signs in again, gets the code step, enters a fresh code and
// is in the app.
//
//   TIMBRE_BASE_URL=… USER_EMAIL=… USER_PASSWORD=… node e2e/totp.mjs
//
// Normally run by workspace_test.go. Screenshots: screenshots/totp-code-step.png and
// screenshots/totp-signed-in.png.
import { readFileSync } from 'node:fs';
import { assert, env, fillSignIn, mailTo, run, session, sixDigits, totp, totpStep } from './flow.mjs';
import { finishOnboarding } from './onboarding.mjs';

const email = env('USER_EMAIL');
const password = env('USER_PASSWORD');

await run('totp', async ({ newPage, step, shot }) => {
  const page = await newPage('user');

  await step('sign in with a password', page, async () => {
    await page.goto('/app/sign-in');
    await fillSignIn(page, email, password);
    await page.waitForURL(/\/app\/(speech-synthesis\/text-to-speech|onboarding)/);
    await finishOnboarding(page); // operator-made accounts have no survey: a no-op
    const s = await session(page);
    assert(s.totp_enabled === false, `2FA already on: ${JSON.stringify(s)}`);
  });

  const enrolled = await step('enrol: the setup dialog shows the secret; confirm with a computed code', page, async () => {
    await page.goto('/app/settings/security?dialog=add-2fa');
    // Enrolment needs proof the user holds the mailbox (a stolen session cannot add its own app).
    const verify = page.getByRole('dialog', { name: 'Verify it’s you' });
    await verify.waitFor();
    await verify.getByLabel('Verification code').fill(sixDigits(await mailTo(page, email, 'verification code')));
    await verify.getByRole('button', { name: 'Verify' }).click();
    await verify.getByRole('button', { name: 'Try again' }).click();
    const dialog = page.getByRole('dialog', { name: 'Set up two-factor authentication' });
    await dialog.waitFor();
    await dialog.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    const shown = (await dialog.getByTestId('totp-secret').textContent()).trim();
    const secret = shown.replace(/\s+/g, '');
    assert(/^[A-Z2-7]{16,}$/.test(secret), `the secret is not base32: ${shown}`);
    const step = totpStep();
    await dialog.getByLabel('Code from the app').fill(totp(secret, step));
    await dialog.getByRole('button', { name: 'Turn on 2FA' }).click();
    return { secret, step, grouped: shown };
  });

  const backup = await step('save the backup codes', page, async () => {
    const dialog = page.getByRole('dialog', { name: 'Save your backup codes' });
    await dialog.waitFor();
    const codes = (await dialog.getByRole('list', { name: 'Backup codes' }).getByRole('listitem').allTextContents()).map((c) => c.trim());
    assert(codes.length >= 8 && new Set(codes).size === codes.length, `backup codes: ${codes.join(' ')}`);
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download' }).click()]);
    const text = readFileSync(await download.path(), 'utf8');
    for (const c of codes) assert(text.includes(c), `the downloaded file lacks ${c}`);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const s = await session(page);
    assert(s.totp_enabled === true, `after enrolment the session says ${JSON.stringify(s)}`);
    return { count: codes.length, file: download.suggestedFilename() };
  });

  await step('sign out', page, async () => {
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL('**/app/sign-in**');
    const res = await page.request.get('/api/auth/session');
    assert(res.status() === 401, `after sign-out GET /api/auth/session → ${res.status()}`);
  });

  await step('sign in again: the password alone is not enough', page, async () => {
    await fillSignIn(page, email, password);
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    await page.getByRole('form', { name: 'Two-factor authentication' }).getByLabel('Authentication code').waitFor();
    const res = await page.request.get('/api/auth/session');
    assert(res.status() === 401, `between the two steps GET /api/auth/session → ${res.status()}`);
    await shot(page, 'totp-code-step');
  });

  const signedIn = await step('enter a fresh TOTP code: in the app', page, async () => {
    // A code is single-use per 30-second step: when the enrolment's step is still current, the
    // next step's code is the fresh one (the server accepts one step of clock drift).
    let step = totpStep();
    if (step <= enrolled.step) step = enrolled.step + 1;
    const form = page.getByRole('form', { name: 'Two-factor authentication' });
    await form.getByLabel('Authentication code').fill(totp(enrolled.secret, step));
    await form.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/app/speech-synthesis/text-to-speech**');
    const s = await session(page);
    assert(s.email === email && s.totp_enabled === true, `session ${JSON.stringify(s)}`);
    return { usedStep: step - totpStep() === 0 ? 'current' : 'next', backupCodes: backup.count };
  });

  await step('screenshot: signed in with 2FA; the security page says it is on', page, async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Security', exact: true }).click();
    await page.waitForURL('**/app/settings/security');
    await page.getByRole('button', { name: 'Disable 2FA' }).waitFor();
    await shot(page, 'totp-signed-in');
    return signedIn;
  });
});
