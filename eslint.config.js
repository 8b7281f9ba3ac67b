// ESLint flat config: typescript-eslint's type-aware recommended rules, Prettier owns layout.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'drizzle/', 'sdk/python/', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'drizzle.*.config.ts', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        // Rest siblings: `const { secret, ...shown } = row` drops fields from a copy deliberately.
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/no-unused-expressions': 'error',
      // Adapters and fakes are async to conform to their port even when the work is synchronous.
      '@typescript-eslint/require-await': 'off',
      // Services are plain objects of closures with no `this`, declared as methods in their ports.
      '@typescript-eslint/unbound-method': 'off',
      // File names and CLI output are cleaned of control characters by regular expressions on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    // S3 failures are restated as plain Errors: the SDK's error and its request metadata stay out of logs.
    files: ['src/adapters/blob/s3-blob-store.ts'],
    rules: { 'preserve-caught-error': 'off' },
  },
  {
    // Tests read JSON bodies (`res.json()`, JSON.parse) as `any` and assert on their shape.
    files: ['tests/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The dashboard's browser code compiles against its own tsconfig (DOM, JSX).
    files: ['src/adapters/dashboard/src/**/*.{ts,tsx}'],
    languageOptions: {
      globals: globals.browser,
      parserOptions: { projectService: false, project: 'src/adapters/dashboard/tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // Plain JavaScript has no types to check against.
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
  },
  prettier,
);
