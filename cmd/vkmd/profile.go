package main

import (
	"errors"
	"os"
	"runtime"
	"runtime/pprof"
)

// profile starts a CPU profile into cpuFile (none when empty) and returns
// the function that stops it and writes a heap profile into memFile (none
// when empty): what `go tool pprof -top` reads to say where the server's
// time and allocations go.
func profile(cpuFile, memFile string) (stop func() error, err error) {
	var cpu *os.File
	if cpuFile != "" {
		if cpu, err = os.Create(cpuFile); err != nil {
			return nil, err
		}
		if err = pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, err
		}
	}
	return func() error {
		var errs []error
		if cpu != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cpu.Close())
		}
		if memFile != "" {
			errs = append(errs, writeHeap(memFile))
		}
		return errors.Join(errs...)
	}, nil
}

// writeHeap writes the allocation profile (every allocation since start,
// by place, as pprof's -sample_index=alloc_space reads it) into file.
func writeHeap(file string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	runtime.GC() // the live heap as of now, not of the last collection
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
