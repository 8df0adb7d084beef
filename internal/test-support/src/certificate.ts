import { generate } from 'selfsigned';

/** A PEM key and self-signed certificate for the local test receivers. */
export interface TestCertificate {
  /** PEM private key (EC P-256). */
  key: string;
  /** PEM certificate; also the CA to trust (`transport.tls.ca`). */
  cert: string;
}

/**
 * Names the certificate is valid for: `localhost`, the reserved test names
 * `hooks.test` and `*.hooks.test` (for tests that map a hostname to 127.0.0.1
 * with a fake resolver and check SNI and Host), and the loopback addresses.
 */
export const TEST_CERTIFICATE_NAMES = [
  'localhost',
  'hooks.test',
  '*.hooks.test',
  '127.0.0.1',
  '::1',
] as const;

let cached: Promise<TestCertificate> | undefined;

/**
 * A new self-signed certificate valid for `names` (DNS names, wildcards and IP
 * addresses): for receivers that need names the shared one lacks, such as one
 * loopback address per receiver.
 */
export async function generateTestCertificate(names: readonly string[]): Promise<TestCertificate> {
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    // Back-dated a little so a receiver started right away is valid despite clock skew between processes.
    notBeforeDate: new Date(now - 60 * 60 * 1000),
    notAfterDate: new Date(now + 7 * 24 * 60 * 60 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: names.map((name) =>
          /^[\d.]+$|:/.test(name) ? { type: 7 as const, ip: name } : { type: 2 as const, value: name },
        ),
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

/**
 * The self-signed certificate of the test receivers, generated once per
 * process (EC keys make that a few milliseconds) and shared afterwards.
 */
export function getTestCertificate(): Promise<TestCertificate> {
  cached ??= generateTestCertificate(TEST_CERTIFICATE_NAMES);
  return cached;
}
