import { z } from 'zod';

/** An email address as typed into a form: sign-in, sign-up, password reset and SSO sign-in share it. */
export const emailField = z
  .string()
  .trim()
  .min(1, 'Please enter your email address.')
  .pipe(z.email('Please enter a valid email address.'));

export const emailSchema = z.object({ email: emailField });
