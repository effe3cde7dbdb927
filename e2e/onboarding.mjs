// finishOnboarding: a freshly created user (sign-up, invite sign-up, SSO auto-provisioning)
// starts with is_onboarding_completed=false and the app sends them to the onboarding survey
// at /app/onboarding, then /app/onboarding/next. This helper answers the survey the way a user
// would (type a first name, choose a role, press Continue), then leaves the "what next" page
// for the app. When the app shell shows instead (an existing user), it does nothing.

/**
 * finishOnboarding waits briefly for the onboarding survey or the signed-in app shell; if the
 * survey shows, fills it in and submits it, and returns once the user is in the app (true).
 * Returns false when no survey was shown.
 * onSurvey and onNext (optional) run on the filled survey and on the "what next" page, e.g. for
 * screenshots.
 * @param {import('playwright-core').Page} page
 * @param {{ firstName?: string, role?: string, timeout?: number, onSurvey?: (page: import('playwright-core').Page) => Promise<unknown>, onNext?: (page: import('playwright-core').Page) => Promise<unknown> }} [opts]
 */
export async function finishOnboarding(page, { firstName = 'Ada', role = 'Developer', timeout = 15_000, onSurvey, onNext } = {}) {
  const survey = page.getByRole('heading', { name: 'Welcome to Timbre' });
  const shell = page.getByRole('button', { name: 'User menu' });
  try {
    await survey.or(shell).first().waitFor({ state: 'visible', timeout });
  } catch {
    return false; // neither: not a page of the signed-in app (e.g. the invitation page)
  }
  if (!(await survey.isVisible())) return false;

  await page.getByLabel('First name').fill(firstName);
  await page.getByLabel('What do you do?').selectOption(role);
  if (onSurvey) await onSurvey(page);
  await page.getByRole('button', { name: 'Continue' }).click();

  // The "what next" page: leave it for the app (or wherever the user was headed).
  const skip = page.getByRole('link', { name: 'Skip for now' });
  await skip.or(shell).first().waitFor({ state: 'visible', timeout });
  if (await skip.isVisible()) {
    if (onNext) await onNext(page);
    await skip.click();
  }
  await page.waitForURL((u) => !u.pathname.startsWith('/app/onboarding'), { timeout });
  await shell.waitFor({ state: 'visible', timeout });
  return true;
}
