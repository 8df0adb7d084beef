/** What a successful signature check returns. */
export interface VerifiedSignature {
  /** The verified `t`: epoch milliseconds at which the service signed the delivery. */
  timestamp: number;
}
