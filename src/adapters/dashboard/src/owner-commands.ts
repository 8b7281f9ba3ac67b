// The CLI commands the signed-out dashboard shows (docs/cli.md, owner commands): run on the
// server's machine, in the checkout, with the server's configuration.
const CLI = 'npm run --silent gatehouse --';

export const OWNER_CREATE = `${CLI} owner create --email you@example.com`;
export const OWNER_RESET_PASSWORD = `${CLI} owner reset-password --email you@example.com`;
export const OWNER_LOGIN = `${CLI} owner login --email you@example.com`;
