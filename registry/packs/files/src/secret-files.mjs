/* global process */
// Which files look like secrets: an agent has no business reading keys, tokens or passwords.
// They are read and searched only with FILES_ALLOW_SECRETS=1. Matched case-insensitively, as
// a case-insensitive file system opens .GIT/CONFIG as .git/config.

/** Matched against the file's own name. */
const SECRET_NAMES = [
  /^\.env(\..*)?$/i,
  /\.(pem|key|p12|pfx|jks|keystore|ppk|kdbx|tfstate|tfstate\.backup)$/i,
  /^id_(rsa|dsa|ecdsa|ed25519|ecdsa_sk|ed25519_sk)(\.|$)/i,
  /^[._]netrc$/i,
  /^\.(npmrc|pypirc|pgpass|git-credentials|dockercfg|vault-token|htpasswd|boto|s3cfg)$/i,
  /^\.terraformrc$/i,
  // AWS, Cargo, RubyGems, gcloud, Terraform, Jenkins, Google OAuth clients; not credentials.ts.
  /^credentials(\.(json|toml|ya?ml|db|xml|tfrc\.json))?$/i,
  /^kubeconfig(\.ya?ml)?$/i,
  /^secrets?\.(ya?ml|json|toml)$/i,
  /^\..*_history$/i,
];

/** Matched against the path relative to the project root, `/`-separated. */
const SECRET_PATHS = [
  /(^|\/)\.git\/(.+\/)?config$/i,
  /(^|\/)\.docker\/config\.json$/i,
  /(^|\/)\.kube\/config$/i,
  /(^|\/)\.(ssh|gnupg|password-store|azure)\//i,
  /(^|\/)\.config\/gcloud\//i,
  /(^|\/)\.config\/gh\/hosts\.ya?ml$/i,
  // Composer's tokens, at the project root or in its home folder; a locale's auth.json is not.
  /^auth\.json$/i,
  /(^|\/)\.?composer\/auth\.json$/i,
];

// A private key is a secret whatever the file is called.
const PRIVATE_KEY = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/;

function allowsSecrets() {
  return process.env.FILES_ALLOW_SECRETS === '1';
}

/** Whether the file at `display` (relative to the root) must not be read for its name. */
export function isSecretPath(display) {
  if (allowsSecrets()) return false;
  const name = display.slice(display.lastIndexOf('/') + 1);
  return (
    SECRET_NAMES.some((pattern) => pattern.test(name)) ||
    SECRET_PATHS.some((pattern) => pattern.test(display))
  );
}

/** Whether `bytes` (the start of a file, or all of it) hold a private key. */
export function holdsPrivateKey(bytes) {
  return !allowsSecrets() && PRIVATE_KEY.test(bytes.toString('latin1'));
}

export const SECRET_HINT = 'Set FILES_ALLOW_SECRETS=1 in the server environment to allow it.';
