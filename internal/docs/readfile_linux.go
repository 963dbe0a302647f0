package docs

import (
	"io/fs"
	"syscall"
)

// readFile reads the file at path into buf[:0] (grown when short) with
// bare system calls: os.ReadFile sets a regular file up for the runtime's
// poller too (fcntl, epoll_ctl), which costs as much as reading a small
// manifest. With buf's memory, a small file takes four system calls (open,
// read, the read that finds its end, close); without, an fstat more to
// size the buffer. The errors are os.ReadFile's.
func readFile(path string, buf []byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	if cap(buf) == 0 {
		// No memory to read into: size it by the file, as os.ReadFile
		// does. A caller that reuses its memory (the inputs' reader)
		// spares the fstat: its file is read until read gives nothing,
		// the buffer grown as needed.
		var st syscall.Stat_t
		size := 0
		if syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG {
			size = int(st.Size)
		}
		buf = make([]byte, 0, max(size+1, 512))
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // let append grow it
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
