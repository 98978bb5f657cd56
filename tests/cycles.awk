# Reads edges "from to", one a line; prints each cycle (a strongly connected
# component of more than one node) as "a -> b -> ... -> a", and exits 1 if
# there is one.  Tarjan's algorithm; then a shortest path back to its start.
# POSIX awk: tests/include_cycles.sh and tests/call_cycles.sh share it.
# With -v folders=1 each end is its folder (the top of the tree is ".").
{
	if (folders)
		for (i = 1; i <= 2; i++)
			if (!sub(/\/[^\/]*$/, "", $i))
				$i = "."
	if ($1 == $2) next
	if (!(($1, $2) in edge)) {
		edge[$1, $2] = 1
		nout[$1]++
		out[$1, nout[$1]] = $2
	}
	node[$1] = 1
	node[$2] = 1
}
function strong(v,    i, w) {
	index_of[v] = low[v] = ++counter
	stack[++sp] = v
	on[v] = 1
	for (i = 1; i <= nout[v]; i++) {
		w = out[v, i]
		if (!(w in index_of)) {
			strong(w)
			if (low[w] < low[v])
				low[v] = low[w]
		} else if (on[w] && index_of[w] < low[v])
			low[v] = index_of[w]
	}
	if (low[v] == index_of[v]) {
		ncomp++
		size[ncomp] = 0
		do {
			w = stack[sp--]
			on[w] = 0
			comp[w] = ncomp
			size[ncomp]++
			if (!(ncomp in first) || w < first[ncomp])
				first[ncomp] = w
		} while (w != v)
	}
}
# The shortest cycle through s inside its component, by breadth first.
function cycle(s,    q, h, t, v, w, i, seen, prev, path) {
	h = 1; t = 0
	split("", seen)
	for (i = 1; i <= nout[s]; i++) {
		w = out[s, i]
		if (comp[w] == comp[s] && !(w in seen)) {
			seen[w] = 1; prev[w] = s; q[++t] = w
		}
	}
	while (h <= t) {
		v = q[h++]
		if (v == s)
			break
		for (i = 1; i <= nout[v]; i++) {
			w = out[v, i]
			if (comp[w] == comp[s] && !(w in seen)) {
				seen[w] = 1; prev[w] = v; q[++t] = w
			}
		}
	}
	path = s
	for (v = prev[s]; v != s; v = prev[v])
		path = v " -> " path
	return s " -> " path
}
END {
	n = 0
	for (v in node)
		names[++n] = v
	# a fixed order, so that the same tree gives the same message
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && names[j - 1] > names[j]; j--) {
			t = names[j]; names[j] = names[j - 1]; names[j - 1] = t
		}
	for (i = 1; i <= n; i++)
		if (!(names[i] in index_of))
			strong(names[i])
	bad = 0
	for (c = 1; c <= ncomp; c++)
		if (size[c] > 1) {
			print prefix "cycle: " cycle(first[c])
			if (size[c] > 2) {
				all = ""
				for (i = 1; i <= n; i++)
					if (comp[names[i]] == c)
						all = all " " names[i]
				print prefix "  (one of the cycles among" all ")"
			}
			bad = 1
		}
	exit bad
}
