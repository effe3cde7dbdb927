// Sensitive-action verification in the browser: a session older than the server's fresh window
// asks to change the email → 403 sensitive_action_verification_required, a code is mailed → the
// dialog asks for it → a wrong code is refused → the right one (from the development mailbox)
// shows "Email access verified. Please try the action again." → "Try again" sends the new
// address its code → entering that code changes the email.
//
//   USER_EMAIL, NEW_EMAIL, SESSION_TOKEN, CSRF_TOKEN (an aged session made by sensitive_test.go)
import { assert, env, mailTo, run, session, sixDigits } from './flow.mjs';

const email = env('USER_EMAIL');
const newEmail = env('NEW_EMAIL');
const token = env('SESSION_TOKEN');
const csrfToken = env('CSRF_TOKEN');


await run('sensitive', async ({ baseUrl, newPage, step, shot }) => {
  const page = await newPage('user');

  await step('an older session opens the settings', page, async () => {
    await page.context().addCookies([
      { name: 'xi_website_session', value: token, url: baseUrl, httpOnly: true, sameSite: 'Lax' },
      { name: 'xi_website_csrf', value: csrfToken, url: baseUrl, sameSite: 'Lax' },
    ]);
    await page.goto('/app/settings');
    await page.getByTestId('profile-email').filter({ hasText: email }).waitFor();
    const s = await session(page);
    assert(s.email === email, `session ${JSON.stringify(s)}`);
  });

  const dialog = page.getByRole('dialog', { name: 'Verify it’s you' });
  await step('change email: the server wants proof; the code dialog opens', page, async () => {
    await page.getByRole('button', { name: 'Change email' }).click();
    await page.getByLabel('New email').fill(newEmail);
    const answer = page.waitForResponse((r) => r.url().endsWith('/v1/user/send-email-change-verification'));
    await page.getByRole('button', { name: 'Send code' }).click();
    const r = await answer;
    assert(r.status() === 403, `send-email-change-verification → ${r.status()}, want 403`);
    assert((await r.json()).detail?.status === 'sensitive_action_verification_required', 'the 403 names sensitive_action_verification_required');
    await dialog.waitFor();
    const field = dialog.getByLabel('Verification code');
    assert(await field.evaluate((el) => el === document.activeElement), 'the code field has the focus');
  });

  await step('a wrong code is refused', page, async () => {
    await dialog.getByLabel('Verification code').fill('000000');
    await page.keyboard.press('Enter');
    await dialog.getByText('The verification code is wrong or has expired.').waitFor();
  });

  await step('the mailed code: verified (spec §8 text); one click retries the change', page, async () => {
    const code = sixDigits(await mailTo(page, email, 'verification code'));
    await dialog.getByLabel('Verification code').fill(code);
    await dialog.getByRole('button', { name: 'Verify' }).click();
    await dialog.getByText('Email access verified. Please try the action again.').waitFor();
    await shot(page, 'sensitive-verified');
    const answer = page.waitForResponse((r) => r.url().endsWith('/v1/user/send-email-change-verification'));
    await dialog.getByRole('button', { name: 'Try again' }).click();
    assert((await answer).status() === 200, 'the retried change was accepted');
    await dialog.waitFor({ state: 'detached' });
    await page.getByText(`Enter the 6-digit code we sent to`).waitFor();
  });

  await step('the new address’s code changes the email', page, async () => {
    const code = sixDigits(await mailTo(page, newEmail, 'email change code'));
    await page.getByLabel('Verification code').fill(code);
    await page.getByRole('button', { name: 'Change email' }).last().click();
    await page.getByText('Email updated!', { exact: false }).first().waitFor();
    await page.getByTestId('profile-email').filter({ hasText: newEmail }).waitFor();
  });
});
