import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { pinnedLookup } from '../src/transport/pinned-pools';

type Answer = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function ask(lookup: ReturnType<typeof pinnedLookup>, options: Parameters<typeof lookup>[1]): Answer {
  let answer: Answer | undefined;
  lookup('ignored.example', options, (error, address, family) => {
    answer = { error, address, family };
  });
  if (!answer) throw new Error('the lookup did not answer synchronously');
  return answer;
}

describe('pinnedLookup(addresses)', () => {
  const lookup = pinnedLookup([
    { address: '2606:4700::1111', family: 6 },
    { address: '93.184.216.34', family: 4 },
  ]);

  it('answers every checked address, in order, when all are asked for', () => {
    expect(ask(lookup, { all: true }).address).toEqual([
      { address: '2606:4700::1111', family: 6 },
      { address: '93.184.216.34', family: 4 },
    ]);
  });

  it('answers the first checked address otherwise, whatever name is asked', () => {
    expect(ask(lookup, {})).toMatchObject({ error: null, address: '2606:4700::1111', family: 6 });
  });

  it('honours a family restriction', () => {
    expect(ask(lookup, { family: 4 })).toMatchObject({ address: '93.184.216.34', family: 4 });
    expect(ask(lookup, { family: 'IPv6', all: true }).address).toEqual([
      { address: '2606:4700::1111', family: 6 },
    ]);
  });

  it('fails with ENOTFOUND when no checked address has the family', () => {
    const v4Only = pinnedLookup([{ address: '93.184.216.34', family: 4 }]);
    expect(ask(v4Only, { family: 6 }).error?.code).toBe('ENOTFOUND');
  });
});
