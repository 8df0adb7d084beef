import { fileURLToPath } from 'node:url';

/**
 * Where the standalone script is on disk: one ES module with Lit inlined that registers
 * `<svc-webhooks-portal>`. A server serves it as JavaScript (`createWebhooksPortal` in
 * `@svc/webhooks-express` does); a page loads it with `<script type="module">`.
 */
export const standaloneScriptPath: string = fileURLToPath(new URL('../dist/standalone.js', import.meta.url));
