#!/bin/sh
# Installs hloplan into a scratch prefix, checks the tree and that the
# library defines no global outside hloplan_*, links a program
# through pkg-config, then configures and builds samples/aot against it with
# one CMake generator and runs it.  Then: a build with nothing changed runs
# nothing; touching the model or the tool re-runs the planning (and, with
# ninja's restat, recompiles nothing, as the header's bytes did not change);
# changing the model changes the header and the program still runs.
# usage: test_install.sh CMAKE BUILD_DIR SOURCE_DIR SCRATCH GENERATOR CC FLAGS
cmake=$1 build=$2 src=$3 dir=$4 gen=$5 cc=$6 flags=$7
prefix=$dir/prefix b=$dir/build n=0

fail() {
	echo "FAIL ($gen): $*"
	exit 1
}

# step NAME: builds the sample; the log is $b.NAME.log.
step() {
	n=$((n + 1))
	log=$b.$n.$1.log
	"$cmake" --build "$b" > "$log" 2>&1 || { cat "$log"; fail "build $1"; }
}

planned() {
	grep -q "hloplan: planning mlp_plan.h" "$log"
}

rm -rf "$dir" && mkdir -p "$dir/src/samples" || exit 1
"$cmake" --install "$build" --prefix "$prefix" > "$dir/install.log" ||
	fail "cmake --install"
for f in bin/hloplan include/hloplan.h share/man/man1/hloplan.1; do
	[ -f "$prefix/$f" ] || fail "no $f installed"
done
[ -n "$(find "$prefix" -name hloplanConfig.cmake)" ] || fail "no config"
lib=$(find "$prefix" -name libhloplan.a)
[ -n "$lib" ] || fail "no libhloplan.a"
# Only hloplan_* leaves the installed library (nm: binutils or LLVM's).
nm=$(command -v nm || command -v llvm-nm) || fail "no nm"
sh "$src/tests/exports.sh" "$nm" "$lib" > "$dir/exports.log" ||
	fail "$(cat "$dir/exports.log")"
"$prefix/bin/hloplan" --version | grep -q '^hloplan ' || fail "--version"

# pkg-config: a program that calls the library and has functions of the
# names the library uses inside (they must not clash).
pc=$(dirname "$(find "$prefix" -name hloplan.pc)")
if command -v pkg-config > /dev/null; then
	printf '#include <hloplan.h>\n#include <stdio.h>\nint pack(void);\nint pack(void) { return 0; }\nint pool_alloc(void);\nint pool_alloc(void) { return 0; }\nint main(void) { return pack() + pool_alloc() + !puts(hloplan_version()); }\n' > "$dir/pc.c"
	# shellcheck disable=SC2046,SC2086
	"$cc" $flags "$dir/pc.c" -o "$dir/pc" \
		$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs hloplan) ||
		fail "build through pkg-config"
	"$dir/pc" > /dev/null || fail "the pkg-config program"
fi

# samples/aot, with the model beside it as in the source tree.
cp -r "$src/samples/aot" "$src/samples/mlp.hlo" "$src/samples/while_loop.hlo" \
	"$dir/src/samples/" || exit 1
model=$dir/src/samples/mlp.hlo
"$cmake" -S "$dir/src/samples/aot" -B "$b" -G "$gen" \
	-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
	-DCMAKE_C_FLAGS="$flags" > "$b.configure.log" 2>&1 ||
	{ cat "$b.configure.log"; fail "configure"; }
step first
planned || fail "the first build did not plan"
"$b/app" | grep -q '^OK' || fail "app: $("$b/app")"
"$b/app_io" | grep -q '^OK' || fail "app_io: $("$b/app_io")"
"$b/embed" | grep -q '^OK' || fail "embed: $("$b/embed")"
"$b/run" | grep -q '^OK' || fail "run: $("$b/run")"
"$b/run_io" | grep -q '^OK' || fail "run_io: $("$b/run_io")"
"$b/bind" | grep -q '^OK' || fail "bind: $("$b/bind")"

step noop
planned && fail "a build with nothing changed planned again"
grep -q "Building\|Linking" "$log" && fail "a no-op build built: $(cat "$log")"

sleep 1
touch "$model"
step touched
planned || fail "touching the model did not re-run the planning"
if [ "$gen" = Ninja ]; then
	grep -q "Building" "$log" &&
		fail "an unchanged header made ninja recompile: $(cat "$log")"
fi
step noop2
planned && fail "a build after the touched one planned again"

sleep 1
touch "$prefix/bin/hloplan"
step tool
planned || fail "a newer hloplan did not re-run the planning"
step noop3
planned && fail "a build after the new tool planned again"

sed 's/\[32,/[16,/g' "$model" > "$model.new" && mv "$model.new" "$model"
step changed
planned || fail "a changed model was not planned"
grep -q "Building C object" "$log" || fail "a changed header built nothing"
"$b/app" | grep -q '^OK' || fail "app after the change"
"$b/embed" | grep -q '^OK' || fail "embed after the change"
"$b/bind" | grep -q '^OK' || fail "bind after the change"
echo "$gen: $n builds as expected"
