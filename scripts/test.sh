#!/bin/sh
# npm test: the type check and lint run beside jest, at a lower priority, so they take the CPU jest leaves idle
# while its files wait (rate windows, deadlines, spawned servers) instead of holding jest back ~13 s before it
# starts. Any of the three failing fails the run; arguments go to jest (CI passes --json --outputFile=...).
#
# Everything runs on Node 22, Lambda's nodejs22.x, from the optional node-<platform>-<arch> package when npm
# installed one: jest, its workers and every node process a test starts (PATH). It is the runtime the functions
# deploy to, and it runs the suite on about 12 % less CPU than Node 20 (docs/benchmarks.md, "The test suite").
node22=$(node -e 'try { process.stdout.write(require("path").join(require("path").dirname(require.resolve(`node-${process.platform}-${process.arch}/package.json`)), "bin")) } catch {}')
if [ -n "$node22" ] && [ -x "$node22/node" ]; then
  PATH="$node22:$PATH"
  export PATH
else
  echo "npm test: no Node 22 package for $(node -p 'process.platform + "-" + process.arch'); running on $(node --version)" >&2
fi
nice -n 10 npm run --silent typecheck &
typecheck=$!
nice -n 10 npm run --silent lint &
lint=$!
jest "$@"
tests=$?
wait $typecheck
types=$?
wait $lint
style=$?
[ $types -eq 0 ] || echo "npm test: the type check failed (npm run typecheck)" >&2
[ $style -eq 0 ] || echo "npm test: lint failed (npm run lint)" >&2
[ $tests -eq 0 ] && [ $types -eq 0 ] && [ $style -eq 0 ]
