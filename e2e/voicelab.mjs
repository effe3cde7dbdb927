// Instant voice cloning in headless Chromium, the main path: sign in → Voice Lab from the sidebar
// → Add voice → choose a recording, name it, tick the consent → the voice page lists the sample →
// Text to Speech with the clone → the global player plays its speech.
//
//   TIMBRE_BASE_URL=… USER_EMAIL=… USER_PASSWORD=… SPEECH_FILE=speech.mp3 node e2e/voicelab.mjs
//
// Normally run by ivc_test.go, which makes SPEECH_FILE. Screenshot: screenshots/voice-lab.png.
import { basename } from 'node:path';
import { assert, env, fillSignIn, run } from './flow.mjs';
import { finishOnboarding } from './onboarding.mjs';

const email = env('USER_EMAIL');
const password = env('USER_PASSWORD');
const speechFile = env('SPEECH_FILE');
const NAME = 'Browser clone';
const TEXT = 'This is my cloned voice speaking in the browser.';

await run('voicelab', async ({ newPage, step, shot }) => {
  const page = await newPage('user');

  await step('sign in and open Voice Lab from the sidebar', page, async () => {
    await page.goto('/app/sign-in');
    await fillSignIn(page, email, password);
    await page.waitForURL(/\/app\/(speech-synthesis\/text-to-speech|onboarding)/);
    await finishOnboarding(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Voice Lab' }).click();
    await page.waitForURL('**/app/voice-lab');
    await page.getByRole('heading', { name: 'Voice lab' }).waitFor();
    await page.getByText('No voices of your own yet').waitFor();
    assert(await page.getByRole('link', { name: 'Design a voice' }).isVisible(), 'no link to voice design');
  });

  const voiceId = await step('clone from an uploaded recording', page, async () => {
    await page.getByRole('button', { name: 'Add voice' }).click();
    const dialog = page.getByRole('dialog', { name: 'Instant voice clone' });
    await dialog.waitFor();
    await dialog.getByText('not a neural clone').waitFor();
    await page.getByTestId('clone-files').setInputFiles(speechFile);
    await dialog.getByText(basename(speechFile)).waitFor();
    await dialog.getByLabel('Name').fill(NAME);
    // Without the consent nothing is sent.
    await page.getByTestId('clone-submit').click();
    await dialog.getByText('right to clone').waitFor();
    await page.getByTestId('clone-consent').check();
    const answer = page.waitForResponse((r) => r.url().endsWith('/v1/voices/add') && r.request().method() === 'POST', { timeout: 60_000 });
    await page.getByTestId('clone-submit').click();
    const res = await answer;
    assert(res.status() === 200, `POST /v1/voices/add → ${res.status()}: ${(await res.text()).slice(0, 300)}`);
    const { voice_id: id, requires_verification: rv } = await res.json();
    assert(id && rv === false, `add answered ${id} ${rv}`);
    await page.waitForURL(`**/app/voice-lab/${id}`);
    await page.getByRole('heading', { name: NAME }).waitFor();
    const rows = page.getByTestId('sample-row');
    await rows.first().waitFor();
    assert((await rows.count()) === 1 && (await rows.first().textContent()).includes(basename(speechFile)), 'the sample is not listed');
    await shot(page, 'voice-lab');
    return id;
  });

  await step('speak with the clone in Text to Speech; the player plays it', page, async () => {
    await page.goto('/app/speech-synthesis/text-to-speech');
    await page.getByRole('heading', { name: 'Text to Speech' }).waitFor();
    await page.getByLabel('Text', { exact: true }).fill(TEXT);
    const trigger = page.getByLabel('Voice', { exact: true });
    await trigger.click();
    const dialog = page.getByRole('dialog', { name: 'Select a voice' });
    await dialog.waitFor();
    await dialog.getByRole('searchbox').fill(NAME);
    await dialog.getByRole('option').filter({ hasText: NAME }).first().getByRole('button').first().click();
    await dialog.waitFor({ state: 'hidden' });
    const tts = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes(`/v1/text-to-speech/${voiceId}`));
    await page.getByRole('button', { name: 'Generate speech' }).click();
    const res = await tts;
    assert(res.status() === 200, `POST ${res.url()} → ${res.status()}`);
    await page.getByTestId('player').filter({ hasText: NAME }).waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="player"]')?.getAttribute('data-state') === 'playing');
    const audio = page.getByTestId('player-audio');
    const t1 = await audio.evaluate((a) => a.currentTime);
    await audio.evaluate(
      (a, from) =>
        new Promise((resolve) => {
          const done = () => a.currentTime >= from + 0.5 || a.ended || a.error;
          if (done()) return resolve();
          const timer = setTimeout(resolve, 6000);
          a.addEventListener('timeupdate', function on() {
            if (!done()) return;
            clearTimeout(timer);
            a.removeEventListener('timeupdate', on);
            resolve();
          });
        }),
      t1,
    );
    const t2 = await audio.evaluate((a) => a.currentTime);
    const err = await audio.evaluate((a) => a.error?.message ?? null);
    assert(!err, `audio element error: ${err}`);
    assert(t2 > t1 + 0.5, `currentTime did not advance: ${t1} → ${t2}`);
    return { currentTime: [t1, t2] };
  });
});
