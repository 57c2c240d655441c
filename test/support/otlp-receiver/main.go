// An OTLP/HTTP trace receiver for the end-to-end test (test/observability/
// otlp-export.test.ts): POST /v1/traces, decoded by the OpenTelemetry
// Collector's own pdata package (the code its otlp receiver runs), protobuf
// or JSON as the content type says; each span received is written to stdout
// as one JSON line. Built with `go build` from the Go module proxy, cached
// outside the repository (~/.cache/catalogue-api/bin).
package main

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

type span struct {
	TraceID    string         `json:"traceId"`
	SpanID     string         `json:"spanId"`
	ParentID   string         `json:"parentSpanId"`
	Name       string         `json:"name"`
	Kind       string         `json:"kind"`
	Start      uint64         `json:"startUnixNano"`
	End        uint64         `json:"endUnixNano"`
	Status     string         `json:"status"`
	Attributes map[string]any `json:"attributes"`
	Resource   map[string]any `json:"resource"`
	Scope      string         `json:"scope"`
}

func hexOf(b []byte) string {
	for _, c := range b {
		if c != 0 {
			return hex.EncodeToString(b)
		}
	}
	return ""
}

func main() {
	port := flag.Int("port", 0, "port to listen on (0: any free one, printed as the first line)")
	quiet := flag.Bool("quiet", false, "decode every request but print nothing more (benchmarks: only the export's cost)")
	flag.Parse()
	listener, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out := json.NewEncoder(os.Stdout)
	fmt.Printf("{\"listening\":%d}\n", listener.Addr().(*net.TCPAddr).Port)
	http.HandleFunc("/v1/traces", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		request := ptraceotlp.NewExportRequest()
		var decodeErr error
		if r.Header.Get("Content-Type") == "application/json" {
			decodeErr = request.UnmarshalJSON(body)
		} else {
			decodeErr = request.UnmarshalProto(body)
		}
		if decodeErr != nil {
			http.Error(w, decodeErr.Error(), http.StatusBadRequest)
			return
		}
		resourceSpans := request.Traces().ResourceSpans()
		if *quiet {
			resourceSpans = ptraceotlp.NewExportRequest().Traces().ResourceSpans()
		}
		for i := 0; i < resourceSpans.Len(); i++ {
			rs := resourceSpans.At(i)
			resource := rs.Resource().Attributes().AsRaw()
			for j := 0; j < rs.ScopeSpans().Len(); j++ {
				ss := rs.ScopeSpans().At(j)
				for k := 0; k < ss.Spans().Len(); k++ {
					s := ss.Spans().At(k)
					traceID, spanID, parentID := s.TraceID(), s.SpanID(), s.ParentSpanID()
					out.Encode(span{
						TraceID: hexOf(traceID[:]), SpanID: hexOf(spanID[:]), ParentID: hexOf(parentID[:]),
						Name: s.Name(), Kind: s.Kind().String(),
						Start: uint64(s.StartTimestamp()), End: uint64(s.EndTimestamp()),
						Status: s.Status().Code().String(), Attributes: s.Attributes().AsRaw(), Resource: resource, Scope: ss.Scope().Name(),
					})
				}
			}
		}
		response, _ := ptraceotlp.NewExportResponse().MarshalProto()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(response)
	})
	http.Serve(listener, nil)
}
