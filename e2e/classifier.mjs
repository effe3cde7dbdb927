// The AI speech classifier page, in headless Chromium: a signed-in user opens /app/ai-classifier
// from the navigation, chooses speech this server made (an mp3 from its text-to-speech route),
// sees the upload finish and the verdict "Made by this Timbre server", then chooses audio it did
// not make (the engine's own output) and sees "No Timbre watermark found".
//
//   TIMBRE_BASE_URL=… USER_EMAIL=… USER_PASSWORD=… MADE_FILE=… OTHER_FILE=… node e2e/classifier.mjs
//
// Normally run by classifier_test.go. Screenshot: screenshots/ai-classifier.png.
import { assert, env, fillSignIn, run } from './flow.mjs';
import { finishOnboarding } from './onboarding.mjs';

const email = env('USER_EMAIL');
const password = env('USER_PASSWORD');
const made = env('MADE_FILE');
const other = env('OTHER_FILE');

await run('classifier', async ({ newPage, step, shot }) => {
  const page = await newPage('user');

  await step('sign in and open the classifier from the navigation', page, async () => {
    await page.goto('/app/sign-in');
    await fillSignIn(page, email, password);
    await page.waitForURL(/\/app\/(speech-synthesis\/text-to-speech|onboarding)/);
    await finishOnboarding(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'AI Speech Classifier' }).click();
    await page.waitForURL(/\/app\/ai-classifier$/);
    await page.getByRole('heading', { name: 'AI Speech Classifier' }).waitFor();
  });

  await step("Timbre's own speech: made by this server", page, async () => {
    await page.getByTestId('classifier-file').setInputFiles(made);
    const verdict = page.getByTestId('classifier-verdict');
    await verdict.waitFor();
    const text = await verdict.textContent();
    assert(text.includes('Made by this Timbre server'), `verdict: ${text}`);
    assert(text.includes('> 99.9 %'), `probability: ${text}`);
    await shot(page, 'ai-classifier');
  });

  await step('audio the server did not make: no watermark', page, async () => {
    await page.getByTestId('classifier-file').setInputFiles(other);
    const verdict = page.getByTestId('classifier-verdict');
    await verdict.filter({ hasText: 'No Timbre watermark found' }).waitFor();
    const text = await verdict.textContent();
    assert(!text.includes('Made by this Timbre server'), `verdict: ${text}`);
  });
});
