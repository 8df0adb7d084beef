export type { TestCertificate } from './certificate';
export { generateTestCertificate, getTestCertificate, TEST_CERTIFICATE_NAMES } from './certificate';
export type { DnsQuery, DnsRecords, DnsZoneEntry, TestDnsServer, TestDnsServerOptions } from './dns-server';
export { startDnsServer } from './dns-server';
export type { FakeHostAnswer, FakeHostResolver, FakeResolvedAddress } from './host-resolver';
export { hostResolver } from './host-resolver';
export type {
  ReceivedRequest,
  ResponseHandler,
  ResponsePlan,
  TestReceiver,
  TestReceiverOptions,
} from './receiver';
export { startTestReceiver } from './receiver';
export type { ReceiverStats } from './receiver-messages';
export type { ReceiverProcess, ReceiverProcessOptions } from './receiver-process';
export { spawnReceiverProcess } from './receiver-process';
export { everythingIn, newSecretKey, openSealedSecret, recordingSecrets } from './sealed-secrets';
export type { ServiceHarness, ServiceHarnessOptions } from './service-harness';
export { FAST_CIRCUIT, FAST_RETRY, jobCancelled, startServiceHarness } from './service-harness';
export type { PublicJwk, StandardSignatureEntry } from './standard-webhooks';
export {
  asymmetricSignersOf,
  flatHeaders,
  standardSignatureEntries,
  verifyStandardRequest,
} from './standard-webhooks';
