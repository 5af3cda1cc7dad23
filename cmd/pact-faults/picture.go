package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"time"
)

// pictureWindow is the width of the windows whose p99 the picture plots.
const pictureWindow = 2 * time.Second

// picture writes an SVG of latency over time, one line per call type: the
// p99 of the calls answered in each window of pictureWindow, on a
// logarithmic scale from 1 ms to 10 s. Held calls (pact_events) are left
// out: their latency is the hold.
func (s *stats) picture(w io.Writer, title string, elapsed time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	const width, height, left, right, top, bottom = 900.0, 420.0, 60.0, 170.0, 40.0, 40.0
	byTool := map[string][][]time.Duration{}
	windows := int(elapsed/pictureWindow) + 1
	for _, c := range s.times {
		if c.tool == "pact_events" {
			continue
		}
		if byTool[c.tool] == nil {
			byTool[c.tool] = make([][]time.Duration, windows)
		}
		if i := int(c.at / pictureWindow); i < windows {
			byTool[c.tool][i] = append(byTool[c.tool][i], c.lat)
		}
	}
	tools := make([]string, 0, len(byTool))
	for t := range byTool {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	x := func(sec float64) float64 { return left + (width-left-right)*sec/elapsed.Seconds() }
	y := func(d time.Duration) float64 {
		ms := math.Min(math.Max(float64(d)/float64(time.Millisecond), 1), 10000)
		return top + (height-top-bottom)*(1-math.Log10(ms)/4)
	}
	colors := []string{"#1b6ca8", "#d1495b", "#edae49", "#00798c", "#66a182", "#8d6a9f", "#2e4057", "#111111", "#6b4226"}
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/><text x="%g" y="20" font-size="14">%s</text>`+"\n", left, title)
	for _, ms := range []float64{1, 10, 100, 1000, 10000} {
		yy := y(time.Duration(ms * float64(time.Millisecond)))
		fmt.Fprintf(w, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%g" y="%.1f" text-anchor="end">%s</text>`+"\n",
			left, width-right, yy, yy, left-6, yy+4, time.Duration(ms*float64(time.Millisecond)))
	}
	goal := y(50 * time.Millisecond)
	fmt.Fprintf(w, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#999" stroke-dasharray="4 3"/>`+
		`<text x="%g" y="%.1f" fill="#666">goal: p99 50ms</text>`+"\n", left, width-right, goal, goal, left+4, goal-4)
	for sec := 0.0; sec <= elapsed.Seconds(); sec += 10 {
		fmt.Fprintf(w, `<text x="%.1f" y="%g" text-anchor="middle">%gs</text>`+"\n", x(sec), height-bottom+18, sec)
	}
	for i, t := range tools {
		// Past the colors, the same colors dashed: no two lines look alike.
		color, dash := colors[i%len(colors)], []string{"none", "6 3", "2 2"}[i/len(colors)%3]
		fmt.Fprintf(w, `<polyline fill="none" stroke="%s" stroke-width="1.5" stroke-dasharray="%s" points="`, color, dash)
		for wi, lats := range byTool[t] {
			if len(lats) == 0 {
				continue
			}
			slices.Sort(lats)
			p99 := lats[min(len(lats)-1, int(0.99*float64(len(lats))))]
			fmt.Fprintf(w, "%.1f,%.1f ", x((float64(wi)+0.5)*pictureWindow.Seconds()), y(p99))
		}
		fmt.Fprintf(w, `"/>`+"\n")
		fmt.Fprintf(w, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="%s" stroke-width="2" stroke-dasharray="%s"/><text x="%g" y="%g">%s</text>`+"\n",
			width-right+8, width-right+26, top+float64(i)*18+1.5, top+float64(i)*18+1.5, color, dash, width-right+30, top+float64(i)*18+5, t)
	}
	fmt.Fprintf(w, `<text x="%g" y="%g">p99 per %s window</text>`+"\n", width-right+12, top+float64(len(tools))*18+10, pictureWindow)
	_, err := fmt.Fprintln(w, `</svg>`)
	return err
}
