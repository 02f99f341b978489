# No output may name an input of the same command (or another output), whatever its spelling: the same path,
# ./, a detour through a directory and .., a symlink, a hard link. Each is exit 2 before anything runs, and the
# input is unchanged (refuse compares the inputs' directory before and after).
echo "# outputs over inputs"
mkdir -p "$IN/sub"
ln -sf "$IN/base.json" "$IN/base_link.json"
ln -f "$IN/base.json" "$IN/base_hard.json"
ln -sf "$IN/profile.yaml" "$IN/profile_link.yaml"
for spelling in "$IN/base.json" "$IN/./base.json" "$IN/sub/../base.json" "$IN/base_link.json" "$IN/base_hard.json"; do
  short=${spelling#"$IN/"}
  refuse "report -o $short" -m "is also" -- report "$IN/base.json" -o "$spelling"
  for flag in --json --junit --html --summary; do
    refuse "compare $flag $short" -m "is also" -- compare "$IN/base.json" "$IN/new.json" "$flag" "$spelling"
    refuse "gate $flag $short" -m "is also" -- gate --baseline "$IN/base.json" "$flag" "$spelling"
  done
  refuse "gate --out $short" -m "is also" -- gate --baseline "$IN/base.json" --out "$spelling"
  for flag in --csv --trace; do  # (a --prom path must end in .prom: never base.json)
    refuse "export $flag $short" -m "is also" -- export "$IN/base.json" "$flag" "$spelling"
  done
done
for spelling in "$IN/profile.yaml" "$IN/profile_link.yaml"; do
  short=${spelling#"$IN/"}
  for flag in --out --html --junit --hosts-out --summary; do
    refuse "accept $flag $short" -m "is also" -- accept --profile "$IN/profile.yaml" "$flag" "$spelling"
  done
done
printf 'groups: 1\n' >"$IN/sweep.yaml"
for flag in --out --html --csv --trace; do
  refuse "sweep $flag over --config" -m "is also" -- sweep --config "$IN/sweep.yaml" "$flag" "$IN/sweep.yaml"
done
# Two outputs of one command that reach one file.
refuse "compare --json = --junit" -m "is also" -- compare "$IN/base.json" "$IN/new.json" --json same.json --junit same.json
refuse "gate --out = --html" -m "is also" -- gate --baseline "$IN/base.json" --out same.json --html ./same.json
rm -f "$IN/base_link.json" "$IN/base_hard.json" "$IN/profile_link.yaml" "$IN/sweep.yaml"
rmdir "$IN/sub"
