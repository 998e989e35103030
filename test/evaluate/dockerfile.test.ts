// What evaluate reads of a task's image without building it (src/evaluate/dockerfile.ts): the instructions, the files
// copied to a folder, ENV, WORKDIR and the agent's user as useradd would make it.
import { describe, expect, test } from 'vitest';
import { agentUser, copiesInto, imageEnv, parseDockerfile, workdir } from '../../src/evaluate/dockerfile.js';

const IMAGE = parseDockerfile(`# the task's image
FROM node:20-bookworm-slim
RUN apt-get update \\
 && useradd --uid 1001 -m agent
copy claims.json /app/claims.json
COPY --chown=agent a.txt b.txt /app/data/
COPY . /tests/
ENV A=1 B="two words" C='x'
ENV OLD spaced value
WORKDIR /srv
WORKDIR /app
`);

describe("a task's image, read from its Dockerfile", () => {
  test('instructions upper-cased, continuation lines joined, comments and blank lines dropped', () => {
    expect(IMAGE.map(([op]) => op)).toEqual([
      'FROM',
      'RUN',
      'COPY',
      'COPY',
      'COPY',
      'ENV',
      'ENV',
      'WORKDIR',
      'WORKDIR',
    ]);
    expect(IMAGE[1]![1]).toMatch(/^apt-get update\s+&& useradd --uid 1001 -m agent$/);
  });

  test('the files copied into a folder, as [build context path, path under it]', () => {
    expect(copiesInto(IMAGE, '/app')).toEqual([
      ['claims.json', 'claims.json'],
      ['a.txt', 'data/a.txt'],
      ['b.txt', 'data/b.txt'],
    ]);
    expect(copiesInto(IMAGE, '/tests')).toEqual([['', '.']]); // the whole context, to the folder itself
    expect(copiesInto(IMAGE, '/ap')).toEqual([]);
  });

  test('ENV in both forms, quotes dropped; the last WORKDIR, else the fallback', () => {
    expect(imageEnv(IMAGE)).toEqual({ A: '1', B: 'two words', C: 'x', OLD: 'spaced value' });
    expect(workdir(IMAGE, '/')).toBe('/app');
    expect(workdir(parseDockerfile('FROM x\n'), '/fallback')).toBe('/fallback');
  });

  test("the agent's user: useradd's --uid, else the first user uid; a uid as such", () => {
    expect(agentUser(IMAGE, 'agent')).toEqual({ name: 'agent', uid: 1001, gid: 1001, home: '/home/agent' });
    expect(agentUser(IMAGE, 'someone')).toEqual({ name: 'someone', uid: 1000, gid: 1000, home: '/home/someone' });
    expect(agentUser(IMAGE, '4242')).toEqual({ name: 'user4242', uid: 4242, gid: 4242, home: '/home/user4242' });
  });
});
