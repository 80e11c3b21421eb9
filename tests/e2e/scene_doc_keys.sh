#!/bin/sh
# scene_doc_keys.sh: every key a scene object takes is documented in docs/scene-format.md.
# The keys come from lcpsim itself: an unknown key in each object is refused with the list
# of the keys known there ("known keys here: ..."); each must have a row in a table of the
# doc ("| `key` |", or "| `object.key` |" as the event-driven table writes them), or, for
# the objects the doc describes in prose (grid, jitter), appear there as "key". The
# top-level "baumgarte_time" had no row in the top-level table (only prose under "Drift
# control").
set -u
cd "$(dirname "$0")/../.."
DOC=docs/scene-format.md
tmp=$(mktemp -d /tmp/lsim_e2e_dockeys_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
B3='"dimension":3,"time_step":1,"steps":1'
fails=0
probes=0
while IFS='|' read -r what form json; do
  [ -n "$what" ] || continue
  keys=$(printf '%s\n' "$json" | ./lcpsim /dev/stdin -o "$tmp/x.h5" 2>&1 |
         sed -n 's/.*unknown key (known keys here: \(.*\))$/\1/p' | tr -d ' ' | tr ',' ' ')
  [ -n "$keys" ] || { echo "FAIL: $what: no list of known keys"; fails=$((fails + 1)); continue; }
  probes=$((probes + 1))
  for k in $keys; do
    case $form in
      row) grep -Fq "| \`$k\` |" "$DOC" || grep -Eq "^\| \`[a-z_]+\.$k\` \|" "$DOC" ;;
      prose) grep -q "\"$k\"" "$DOC" ;;
    esac || { echo "FAIL: $what: key '$k' is not documented in $DOC"; fails=$((fails + 1)); }
  done
done <<J
top level (1-D)|row|{"lcpsim":1,"zzzzqqq":1}
top level (3-D)|row|{"lcpsim":1,"dimension":3,"zzzzqqq":1}
solver|row|{"lcpsim":1,"time_step":1,"steps":1,"solver":{"zzzzqqq":1},"bodies":[{}]}
contact|row|{"lcpsim":1,"time_step":1,"steps":1,"contact":{"zzzzqqq":1},"bodies":[{}]}
limits|row|{"lcpsim":1,"time_step":1,"steps":1,"limits":{"zzzzqqq":1},"bodies":[{}]}
sleep|row|{"lcpsim":1,"time_step":1,"steps":1,"sleep":{"zzzzqqq":1},"bodies":[{}]}
output|row|{"lcpsim":1,"time_step":1,"steps":1,"output":{"zzzzqqq":1},"bodies":[{}]}
ground|row|{"lcpsim":1,"time_step":1,"steps":1,"ground":{"zzzzqqq":1},"bodies":[{}]}
friction|row|{"lcpsim":1,$B3,"friction":{"zzzzqqq":1},"bodies":[{}]}
bodies (1-D)|row|{"lcpsim":1,"time_step":1,"steps":1,"bodies":[{"zzzzqqq":1}]}
walls|row|{"lcpsim":1,"time_step":1,"steps":1,"bodies":[{}],"walls":[{"zzzzqqq":1}]}
bodies (3-D)|row|{"lcpsim":1,$B3,"bodies":[{"zzzzqqq":1}]}
shapes|row|{"lcpsim":1,$B3,"bodies":[{"type":"static","shapes":[{"type":"plane","zzzzqqq":1}]}]}
event_driven|row|{"lcpsim":1,$B3,"integrator":"event_driven","event_driven":{"zzzzqqq":1},"bodies":[{}]}
tethers|row|{"lcpsim":1,$B3,"tethers":[{"zzzzqqq":1}],"bodies":[{"mass":1,"inertia":[1,1,1]}]}
joints|row|{"lcpsim":1,$B3,"joints":[{"zzzzqqq":1}],"bodies":[{"mass":1,"inertia":[1,1,1]}]}
grid|prose|{"lcpsim":1,$B3,"bodies":[{"mass":1,"inertia":[1,1,1],"grid":{"zzzzqqq":1}}]}
jitter|prose|{"lcpsim":1,$B3,"bodies":[{"mass":1,"inertia":[1,1,1],"grid":{"count":[1,1,1],"spacing":[1,1,1],"jitter":{"zzzzqqq":1}}}]}
J
[ "$probes" -eq 18 ] || { echo "FAIL: $probes of 18 objects listed their keys"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] || { echo "scene_doc_keys: $fails failures"; exit 1; }
echo "scene_doc_keys: ok ($probes objects)"
