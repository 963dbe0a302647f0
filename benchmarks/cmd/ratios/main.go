// Command ratios reads `go test -bench` output in which every case runs as
// <name>/crdkit and <name>/upstream (any number of passes) and prints, per
// case, both medians and the speed-up (upstream / crdkit), then the
// geomean over the cases. -impl and -base name other implementations to
// compare (a ratio above 1 means impl is faster than base); either may be
// a sum of implementations, a+b, whose medians are added:
//
//	go run ./cmd/ratios < bench.txt
//	go run ./cmd/ratios -base json < bench.txt   # crdkit against the json baseline
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var line = regexp.MustCompile(`^Benchmark(\S+)/([^/\s]+)-\d+\s+\d+\s+(.*)$`)

func main() {
	impl := flag.String("impl", "crdkit", "the implementation measured")
	base := flag.String("base", "upstream", "the implementation it is compared with")
	metric := flag.String("metric", "ns/op", "the metric compared (cpu-ns/op where the benchmarks report it)")
	flag.Parse()
	samples := map[string]map[string][]float64{}
	var order []string
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns, ok := value(m[3], *metric)
		if !ok {
			continue
		}
		if samples[m[1]] == nil {
			samples[m[1]] = map[string][]float64{}
			order = append(order, m[1])
		}
		samples[m[1]][m[2]] = append(samples[m[1]][m[2]], ns)
	}
	sum, n := 0.0, 0
	for _, c := range order {
		a, okA := medianSum(samples[c], *impl)
		b, okB := medianSum(samples[c], *base)
		if !okA || !okB {
			continue
		}
		r := b / a
		sum += math.Log(r)
		n++
		fmt.Printf("%-90s %s %10.2f µs  %s %10.2f µs  %6.2fx\n", c, *impl, a/1e3, *base, b/1e3, r)
	}
	if n == 0 {
		fmt.Fprintf(os.Stderr, "ratios: no %s/%s pairs in the input\n", *impl, *base)
		os.Exit(1)
	}
	fmt.Printf("geomean speed-up %.2fx over %d cases\n", math.Exp(sum/float64(n)), n)
}

// value finds the number before the unit metric in the measurements of a
// benchmark line ("123 ns/op  45 cpu-ns/op  6 B/op").
func value(fields, metric string) (float64, bool) {
	f := strings.Fields(fields)
	for i := 1; i < len(f); i++ {
		if f[i] == metric {
			v, err := strconv.ParseFloat(f[i-1], 64)
			return v, err == nil
		}
	}
	return 0, false
}

// medianSum adds the medians of the implementations named in impl ("a" or
// "a+b"), false when one has no samples.
func medianSum(byImpl map[string][]float64, impl string) (float64, bool) {
	t := 0.0
	for name := range strings.SplitSeq(impl, "+") {
		v := byImpl[name]
		if len(v) == 0 {
			return 0, false
		}
		t += median(v)
	}
	return t, true
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
