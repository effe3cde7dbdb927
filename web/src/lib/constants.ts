/**
 * Constants and user-facing messages from the product spec
 * (shared/spec/platform-spec.md §2, §8, §9). Keep them here, as data.
 */

export const TIMINGS = {
  /** Auth carousel auto-advance interval. */
  carouselMs: 6000,
  /** Leaving auth fades out over 0.3 s. */
  authFadeMs: 300,
  /** Toast lifetime. */
  toastMs: 5555,
  /** Tooltip open delay. */
  tooltipDelayMs: 100,
  /** Button spinner minimum visible time. */
  buttonSpinnerMinMs: 400,
  /** Sign-out debounce. */
  signOutDebounceMs: 1000,
} as const;

export const TOAST_LIMIT = 3;

export const PLAYER = {
  speeds: [0.8, 1, 1.2, 1.5, 2] as const,
  /** Arrow keys skip this many seconds. */
  arrowSkipSeconds: 3,
  /** Skip buttons jump this many seconds. */
  buttonSkipSeconds: 10,
  progressStep: 0.1,
  /** Unknown duration is estimated at this many words per minute. */
  wordsPerMinute: 140,
  /** Bar height (CSS). */
  height: '5rem',
} as const;

export const FEEDBACK = {
  maxLength: 200,
  minLength: 20,
  /** Thumbs-up opens the dialog only if the item text is at most this long. */
  dialogTextThreshold: 400,
} as const;

export const SHARE_LINK_DISPLAY_LENGTH = 38;

export const DEFAULT_MODEL_ID = 'eleven_multilingual_v2';
export const DEFAULT_OUTPUT_FORMAT = 'mp3_44100_128';
export const DEFAULT_APP_ROUTE = '/app/speech-synthesis/text-to-speech';
export const SIGN_IN_ROUTE = '/app/sign-in';

export const BREAKPOINTS = {
  xs: 480,
  sm: 640,
  md: 768,
  lg: 1024,
  xl: 1280,
  '2xl': 1536,
  '2.5xl': 1758,
  '3xl': 1980,
} as const;

export const MESSAGES = {
  genericHttpError: 'Something went wrong, please try again later.',
  crashTitle: 'Oops, something went wrong!',
  crashBody:
    'A client side error occurred, we are sorry about that! Please click on try again to refresh the page.',
  crashRetry: 'Try again',
  emailVerified: 'Email verified successfully! Please sign back in to continue.',
  tooManyAttempts: 'Too many attempts, please try again in a few minutes.',
  verificationEmailFailed: 'An error occured while sending the verification email.',
  passwordResetRequestFailed: 'An error occurred while requesting the password change.',
  feedbackTooShort: 'Feedback must be at least 20 characters.',
  feedbackReviewed: 'This feedback cannot be changed as it was already reviewed.',
  shareTitle: 'Share with your community',
  shareCopied: 'Share link copied to clipboard',
  previewFailed: 'We are sorry, something went wrong.',
  termsRequired: 'You must agree to the Terms of Service and Privacy Policy to continue.',
  unknownMode: 'This link is not supported. It may be invalid or for a feature that is not available yet.',
} as const;

/** The account's security settings; the query that opens the 2FA setup dialog there (spec §2: settings `?dialog=add-2fa`). */
export const SECURITY_ROUTE = '/app/settings/security';
export const ADD_2FA_DIALOG = 'add-2fa';
export const ADD_2FA_ROUTE = `${SECURITY_ROUTE}?dialog=${ADD_2FA_DIALOG}`;
