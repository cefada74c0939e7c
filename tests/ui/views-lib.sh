# views-lib.sh: running tests/ui/views.js from a test script (ui.sh, tests/peers/multi-host.sh).
# Source it after tests/lib.sh.

# count_views_output: views.js's "ok - " / "not ok - " lines as this script's assertions.
count_views_output() {
        while IFS= read -r line; do
                case $line in
                "ok - "*) ok "${line#ok - }" ;;
                "not ok - "*) not_ok "${line#not ok - }" ;;
                *) echo "$line" ;;
                esac
        done <"$TEST_TMP/views.out"
        check_match "the browser tests ran" '^ok - ' "$(head -1 "$TEST_TMP/views.out")"
}
