import { readdirSync } from 'node:fs';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// The rule that matters: a feature (src/features/<name>) never imports another feature. What
// several features need lives in src/lib or src/components; the app layer (src/app) composes
// features. The two hook rules keep the code's existing exhaustive-deps comments meaningful.
const features = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

const message =
  'A feature may not import another feature (nor reach outside itself by ../): move what both need to src/lib or src/components and import it by @/.';


export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'src/lib/api/schema.d.ts'] },
  {
    files: ['src/**/*.{ts,tsx}'],
    languageOptions: { parser: tseslint.parser },
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  ...features.flatMap((name) =>
    // A file `depth` folders below src/features leaves its feature with depth × "../".
    [1, 2, 3].map((depth) => ({
      files: [`src/features/${name}/${'*/'.repeat(depth - 1)}*.{ts,tsx}`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              { group: ['@/features/*', `!@/features/${name}`, `!@/features/${name}/**`], message },
              { group: [`${'../'.repeat(depth)}*`], message },
            ],
          },
        ],
      },
    })),
  ),
  {
    // Below the features: lib and components never reach up into them (or into the app).
    files: ['src/lib/**/*.{ts,tsx}', 'src/components/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@/features/*', '@/app/*'], message: 'src/lib and src/components may not import features or the app.' }] },
      ],
    },
  },
);
