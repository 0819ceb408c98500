#!/bin/sh
# npm test: the type check and lint run beside jest, at a lower priority, so they take the CPU jest leaves idle
# while its files wait (rate windows, deadlines, spawned servers) instead of holding jest back ~13 s before it
# starts. Any of the three failing fails the run; arguments go to jest (CI passes --json --outputFile=...).
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
