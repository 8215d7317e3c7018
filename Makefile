# tprof — build, test, install.  `make`, `make check`, `make demo`, `make install`.
PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
CFLAGS  ?= -O2 -g
# Project flags stay even when CFLAGS is given on the command line.
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Ilib $(CFLAGS)
LDLIBS  := -lzstd -lz -lcsv -lsqlite3 -lpthread -lm
VERSION := 0.1.0

LIB_SRC   := $(filter-out %_test.c,$(wildcard lib/*.c))
LIB_OBJ   := $(LIB_SRC:.c=.o)
CLI_SRC   := $(filter-out %_test.c,$(wildcard cli/*.c))
CLI_OBJ   := $(CLI_SRC:.c=.o)
TEST_SRC  := $(wildcard lib/*_test.c cli/*_test.c)
TEST_BIN  := $(TEST_SRC:.c=)

all: deps lib/libtprof.a cli/tprof

# Install the Debian -dev packages that are missing; a no-op when all are there.
deps:
	@sh scripts/setup-deps

lib/libtprof.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

cli/tprof: $(CLI_OBJ) lib/libtprof.a
	$(CC) $(ALL_CFLAGS) -o $@ $(CLI_OBJ) lib/libtprof.a $(LDLIBS)

# Objects wait for `deps` (order-only) so `make -j` never compiles before the headers are installed.
%.o: %.c $(wildcard lib/*.h cli/*.h) | deps
	$(CC) $(ALL_CFLAGS) -DTPROF_VERSION='"$(VERSION)"' -c -o $@ $<

lib/%_test: lib/%_test.c lib/libtprof.a lib/testing.h
	$(CC) $(ALL_CFLAGS) -o $@ $< lib/libtprof.a $(LDLIBS)

cli/%_test: cli/%_test.c lib/libtprof.a lib/testing.h
	$(CC) $(ALL_CFLAGS) -o $@ $< lib/libtprof.a $(LDLIBS)

check: all $(TEST_BIN)
	@sh scripts/run-tests $(TEST_BIN)

# The same suite under AddressSanitizer and UndefinedBehaviorSanitizer.
check-asan:
	$(MAKE) clean
	$(MAKE) check CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer"

demo: all
	./cli/tprof info testdata/sample.pt.trace.json
	./cli/tprof -w 150 -c kernel,op,sil,tc,flops testdata/sample.pt.trace.json

bench: all
	sh scripts/bench

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
	           $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 cli/tprof $(DESTDIR)$(PREFIX)/bin/tprof
	install -m 644 lib/libtprof.a $(DESTDIR)$(PREFIX)/lib/libtprof.a
	install -m 644 lib/tprof.h $(DESTDIR)$(PREFIX)/include/tprof.h
	install -m 644 man/tprof.1 $(DESTDIR)$(PREFIX)/share/man/man1/tprof.1
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' lib/tprof.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tprof.pc

clean:
	rm -f lib/*.o cli/*.o lib/libtprof.a cli/tprof $(TEST_BIN)

.PHONY: all deps check check-asan demo bench install clean
