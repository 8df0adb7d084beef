import type { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ChannelSubscription } from '../src/connection/channel-subscription';
import { WakeupListener } from '../src/queue/wakeup-listener';
import { connectTestRedis, describeRedis, uniquePrefix } from './redis-test-env';

async function until(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 200) throw new Error('condition not reached in 2 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describeRedis('WakeupListener: which wake-up messages a claim has answered', () => {
  let redis: Redis;
  let publisher: Redis;
  let subscription: ChannelSubscription;
  let listener: WakeupListener;
  let channel: string;

  beforeEach(async () => {
    redis = connectTestRedis();
    publisher = connectTestRedis();
    channel = `${uniquePrefix('wakeups')}wake`;
    subscription = new ChannelSubscription(redis, 'wakeup-listener-test');
    listener = new WakeupListener(subscription, channel, async () => false);
    listener.prepare();
    await until(() => listener.live);
  });
  afterEach(async () => {
    listener.close();
    await subscription.close();
    await Promise.all([redis.quit(), publisher.quit()]);
  });

  async function publish(...deliveryIds: string[]): Promise<void> {
    const before = listener.seq;
    for (const deliveryId of deliveryIds) await publisher.publish(channel, deliveryId);
    await until(() => listener.seq === before + deliveryIds.length);
  }

  it('a claim answers the messages received before it began, and the deliveries it returned', async () => {
    await publish('d1', 'd2');
    const since = listener.seq;
    await publish('d3', 'd4');
    listener.answered(since, [{ deliveryId: 'd4', runAt: 4 }]);
    expect(listener.quiet, 'd3 came after the claim began and was not claimed').toBe(false);
    listener.answered(listener.seq);
    expect(listener.quiet).toBe(true);
  });

  it('a delivery announced again counts from its latest message', async () => {
    await publish('d1', 'd2', 'd1');
    listener.answered(2);
    expect(listener.quiet, 'd1’s second message came after sequence 2').toBe(false);
    // d2 (sequence 2) was answered above: only d1 is left, and a claim returning it answers it.
    listener.answered(2, [{ deliveryId: 'd1', runAt: 1 }]);
    expect(listener.quiet).toBe(true);
  });

  it('a claimed entry’s own message is old news; the same delivery enqueued again is news', async () => {
    listener.answered(listener.seq, [
      { deliveryId: 'd1', runAt: 1_000 },
      { deliveryId: 'd2', runAt: 2_000 },
    ]);
    const before = listener.seq;
    // d1's message trails the claim that took it; d2 was replayed after its claim, at a later due time.
    await publisher.publish(channel, 'd1 1000');
    await publish('d2 2500');
    expect(listener.seq, 'only d2’s second enqueue counted').toBe(before + 1);
    expect(listener.quiet, 'd2 is waiting for a claim').toBe(false);
    listener.answered(listener.seq);
    await publish('d1 1000');
    expect(listener.quiet, 'd1 again, after its trailing message was seen: news').toBe(false);
  });

  it('a message without a due time (an earlier version’s) is old news only right after its claim', async () => {
    listener.answered(listener.seq, [{ deliveryId: 'd1', runAt: 1_000 }]);
    const before = listener.seq;
    await publisher.publish(channel, 'd1');
    await publish('d1');
    expect(listener.seq, 'the first trailed the claim, the second is news').toBe(before + 1);
  });

  it('a wait resolves at once while a message is unanswered, and waits again once it is answered', async () => {
    const settled = (promise: Promise<void>): (() => boolean) => {
      let done = false;
      void promise.then(() => {
        done = true;
      });
      return () => done;
    };
    await publish('d1');
    const unanswered = settled(listener.wait(5_000));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(unanswered(), 'd1 is unanswered: the wait returned').toBe(true);
    listener.answered(listener.seq);
    const next = listener.wait(5_000);
    const waiting = settled(next);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(waiting(), 'no new message: still waiting').toBe(false);
    await publish('d2');
    await next;
  });
});
