/**
 * The portal's English words, by key. A host overrides any of them through the element's `strings`
 * property (or its `strings` attribute, as JSON); `{name}` marks a value filled in when shown. Keys of
 * one view share a prefix. Words a receiver or the API wrote (error messages, response bodies) are
 * shown as they came.
 */
export const DEFAULT_STRINGS = {
  'tabs.label': 'Webhooks',
  'tab.endpoint': 'Endpoint',
  'tab.deliveries': 'Deliveries',
  'tab.recovery': 'Recovery',
  'tab.events': 'Event types',
  'eventTypes.loadError': 'The event types could not be loaded: {message}',

  'signedOut.title': 'Please sign in again',
  'signedOut.body':
    'Your session has ended, so your webhook settings cannot be shown. Sign in again to continue; nothing you saved is lost.',

  'leave.question': 'You have not confirmed that you stored the new signing secret.',
  'leave.detail':
    'It stays on the Endpoint tab until you confirm, but it is gone for good if you reload or leave this page, and it cannot be shown again.',
  'leave.stay': 'Show the secret',
  'leave.go': 'Switch anyway',

  'secret.title': 'Signing secret',
  'secret.checks.before': 'Your receiver checks the',
  'secret.checks.or': 'or',
  'secret.checks.after': 'header of every delivery with this secret.',
  'secret.masked': 'Current secret (masked):',
  'secret.maskedStandardHint':
    'Standard Webhooks libraries take the secret’s whsec_ form, shown beside it when the secret is created or rotated. From the hex secret you stored, toStandardSecret() of @svc/webhooks-verify gives it.',
  'secret.createdTitle': 'Your signing secret',
  'secret.rotatedTitle': 'Your new signing secret',
  'secret.once': "Copy it now: it won't be shown again.",
  'secret.onceDetail': 'Store it where your receiver can read it, then confirm below.',
  'secret.createdAnnounce':
    'Endpoint created. Your signing secret is shown below, only this once: copy it, store it where your receiver can read it, then confirm you stored it.',
  'secret.rotatedAnnounce':
    'A new signing secret was generated. The old one no longer signs: copy the new one now, it will not be shown again.',
  'secret.copy': 'Copy secret',
  'secret.copyHex': 'Copy hex secret',
  'secret.copyStandard': 'Copy whsec_ secret',
  'secret.hexLabel': 'Hex, for X-Service-Signature and @svc/webhooks-verify',
  'secret.standardLabel': 'The same secret for Standard Webhooks libraries',
  'secret.mixUp':
    'Never paste the hex form into a Standard Webhooks library: it would read it as another key, and no signature would match.',
  'secret.snippetTitle': 'Verify a delivery with it',
  'secret.snippetHint':
    'In your receiver, with the secret in WEBHOOK_SECRET and the body exactly as received (never re-serialised JSON):',
  'secret.copySnippet': 'Copy code',
  'secret.docsLink': 'Receiving webhooks: the full guide',
  'secret.stored': 'I have stored it',
  'secret.storedAnnounce': 'Secret confirmed as stored. Only its masked form is shown from now on.',
  'secret.rotate': 'Rotate secret',
  'secret.rotateQuestion': 'Rotate the secret?',
  'secret.rotateDetail':
    'The current secret stops signing at once, also for deliveries already queued. Update your receiver with the new secret right away.',
  'secret.rotateConfirm': 'Confirm rotation',
  'secret.rotating': 'Rotating…',
  'secret.cancel': 'Cancel',
  'secret.rotateError': 'The secret could not be rotated: {message}',

  'common.tryAgain': 'Try again',

  'status.pending': 'Pending',
  'status.success': 'Success',
  'status.failed': 'Failed',

  'log.title': 'Deliveries',
  'log.find.label': 'Open a delivery by its id',
  'log.find.field': 'Delivery or webhook id',
  'log.find.open': 'Open delivery',
  'log.find.empty': 'Enter a delivery id, or the webhook id (whdel_…) your receiver logged.',
  'log.find.notFound': 'No delivery of yours has the id {id}.',
  'log.find.error': 'The delivery could not be looked up: {message}',
  'log.filters': 'Delivery filters',
  'log.status': 'Status',
  'log.anyStatus': 'Any status',
  'log.eventType': 'Event type',
  'log.anyEventType': 'Any event type',
  'log.entityId': 'Entity id',
  'log.created': 'Created',
  'log.preset.any': 'Any time',
  'log.preset.hour': 'Last hour',
  'log.preset.day': 'Last 24 hours',
  'log.preset.week': 'Last 7 days',
  'log.preset.custom': 'Custom…',
  'log.since': 'Created from',
  'log.until': 'Created before',
  'log.windowError': 'The “Created from” time must be before the “Created before” time.',
  'log.apply': 'Apply',
  'log.clear': 'Clear filters',
  'log.refresh': 'Refresh',
  'log.autoRefresh': 'Refresh every 10 s',
  'log.loading': 'Loading deliveries…',
  'log.loadError': 'The deliveries could not be loaded: {message}',
  'log.noMatch': 'No deliveries match these filters.',
  'log.none': 'No deliveries yet.',
  'log.shown.one': '{count} delivery shown.',
  'log.shown.other': '{count} deliveries shown.',
  'log.more': 'More available.',
  'log.table': 'Deliveries table',
  'log.entity': 'Entity',
  'log.attempts': 'Attempts',
  'log.lastResponse': 'Last response',
  'log.lastAttempt': 'Last attempt',
  'log.noAnswer': 'No answer',
  'log.notTried': 'Not tried yet',
  'log.view': 'View',
  'log.viewFor': 'delivery for {entityId}',
  'log.viewDelivery': 'delivery',
  'log.loadMore': 'Load more',
  'log.loadingMore': 'Loading…',
  'log.end': 'End of the list.',

  'events.title': 'Event types',
  'events.intro':
    'Every event your endpoint can receive, with the fields of its delivery body and an example. Choose the ones to receive under Endpoint.',
  'events.loading': 'Loading the event types…',
  'events.loadError': 'The event types could not be loaded: {message}',
  'events.empty': 'The catalogue has no event types.',
  'events.subscribed': 'Subscribed',
  'events.noDescription': 'No description.',
  'events.entity': 'About a {entityType}: entityId names it.',
  'events.entityVaries': 'The entity type varies: entityType says which.',
  'events.fields': 'Fields',
  'events.fieldsOf': 'Fields of {eventType}',
  'events.field': 'Field',
  'events.type': 'Type',
  'events.required': 'Required',
  'events.description': 'Description',
  'events.yes': 'Yes',
  'events.no': 'No',
  'events.example': 'Example body',
  'events.exampleOf': 'Example body of {eventType}',
  'events.noExample': 'No example in the catalogue.',
  'events.copyExample': 'Copy example',
  'events.schema': 'JSON Schema',
  'events.schemaOf': 'JSON Schema of {eventType}',
  'events.copySchema': 'Copy schema',

  'copy.done': 'Copied to the clipboard.',
  'copy.refused':
    'Copying was not allowed here. The {what} is selected: press Ctrl+C (⌘C on a Mac) to copy it.',
  'copy.what.secret': 'secret',
  'copy.what.code': 'code',
} as const;

/** A key of {@link DEFAULT_STRINGS}. */
export type PortalStringKey = keyof typeof DEFAULT_STRINGS;

/** The host's words for some or all of the portal's strings, by key; the rest stay English. */
export type PortalStrings = Partial<Record<PortalStringKey, string>>;
