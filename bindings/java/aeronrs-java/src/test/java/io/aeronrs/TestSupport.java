package io.aeronrs;

import io.aeronrs.driver.MediaDriver;
import io.aeronrs.driver.ThreadingMode;
import org.agrona.MutableDirectBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * What the tests share: temp Aeron directories, embedded drivers and aeronmd with sleeping
 * idle strategies (the machine has two cores), waiting on conditions with a deadline, child
 * JVMs, the message pattern.
 */
final class TestSupport
{
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private TestSupport()
    {
    }

    /** A fresh directory under the temp dir, for one test's Aeron directory. */
    static Path tempDir(final String name)
    {
        try
        {
            return Files.createTempDirectory("aeronrs-java-" + name + "-");
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes {@code dir} and everything in it, quietly. */
    static void deleteRecursively(final Path dir)
    {
        if (null == dir || !Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        catch (final IOException ignored)
        {
            // best effort: it is under the temp dir
        }
    }

    /** An embedded driver's context for tests: its own directory, one sleeping thread, small sparse terms. */
    static MediaDriver.Context driverContext(final Path aeronDir)
    {
        return new MediaDriver.Context()
            .aeronDirectoryName(aeronDir.toString())
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy("sleep-ns")
            .sharedIdleStrategyInitArgs("100us")
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .termBufferSparseFile(true)
            .ipcTermBufferLength(256 * 1024)
            .publicationTermBufferLength(256 * 1024);
    }

    /** A client context for tests: the directory, a short driver timeout, a sleeping conductor. */
    static Aeron.Context clientContext(final Path aeronDir)
    {
        return new Aeron.Context()
            .aeronDirectoryName(aeronDir.toString())
            .driverTimeoutMs(10_000)
            .idleSleepDurationNs(1_000_000);
    }

    /** Waits until {@code condition} holds, failing after {@link #TIMEOUT}. */
    static void await(final String what, final BooleanSupplier condition)
    {
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out after " + TIMEOUT + " waiting for " + what);
            }
            sleep();
        }
    }

    /** Pauses briefly between two tries of a condition (never as a way to let things happen). */
    static void sleep()
    {
        try
        {
            Thread.sleep(1);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted");
        }
    }

    /** Offers until accepted (retrying back pressure and the like), failing after {@link #TIMEOUT}. */
    static long offer(final Publication publication, final MutableDirectBuffer buffer, final int length)
    {
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true)
        {
            final long result = publication.offer(buffer, 0, length);
            if (result > 0)
            {
                return result;
            }
            if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
            {
                throw new AssertionError("offer: " + result);
            }
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("offer still " + result + " after " + TIMEOUT);
            }
            Thread.yield();
        }
    }

    /** Fills {@code buffer} with message {@code i} of {@code length} bytes: i (8 bytes LE) then (i + j) & 0xFF. */
    static void fill(final MutableDirectBuffer buffer, final long i, final int length)
    {
        if (length >= 8)
        {
            buffer.putLong(0, i, java.nio.ByteOrder.LITTLE_ENDIAN);
        }
        for (int j = Math.min(8, length); j < length; j++)
        {
            buffer.putByte(j, (byte)(i + j));
        }
    }

    /** Whether {@code length} bytes at {@code offset} of {@code buffer} are message {@code i}. */
    static boolean matches(final org.agrona.DirectBuffer buffer, final int offset, final int length, final long i,
        final int expectedLength)
    {
        if (length != expectedLength)
        {
            return false;
        }
        if (length >= 8 && buffer.getLong(offset, java.nio.ByteOrder.LITTLE_ENDIAN) != i)
        {
            return false;
        }
        for (int j = Math.min(8, length); j < length; j++)
        {
            if (buffer.getByte(offset + j) != (byte)(i + j))
            {
                return false;
            }
        }
        return true;
    }

    /** The standalone driver built by cargo. */
    static Path aeronmdPath()
    {
        return Path.of(System.getProperty("aeronrs.aeronmd", "../../../target/release/aeronmd"));
    }

    /** Processes a test started, killed by {@link #close()} (also when the test failed). */
    static final class Processes implements AutoCloseable
    {
        private final List<Process> processes = new ArrayList<>();

        /** Starts aeronmd on {@code aeronDir} and waits until its driver is active. */
        Process aeronmd(final Path aeronDir, final Path log)
        {
            final ProcessBuilder builder = new ProcessBuilder(aeronmdPath().toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
            builder.environment().put("AERON_DIR", aeronDir.toString());
            builder.environment().put("AERON_DIR_DELETE_ON_START", "true");
            builder.environment().put("AERON_DIR_DELETE_ON_SHUTDOWN", "true");
            builder.environment().put("AERON_THREADING_MODE", "SHARED");
            builder.environment().put("AERON_SHARED_IDLE_STRATEGY", "sleep-ns");
            builder.environment().put("AERON_SHARED_IDLE_STRATEGY_INIT_ARGS", "100us");
            builder.environment().put("AERON_TERM_BUFFER_SPARSE_FILE", "true");
            builder.environment().put("AERON_IPC_TERM_BUFFER_LENGTH", "262144");
            final Process process = start(builder);
            await("aeronmd active in " + aeronDir, () ->
            {
                if (!process.isAlive())
                {
                    throw new AssertionError("aeronmd exited with " + process.exitValue() + ": " + read(log));
                }
                return Aeron.isDriverActive(aeronDir.toString(), 10_000);
            });
            return process;
        }

        /** Starts a JVM running {@code mainClass} with the test class path and native access. */
        Process java(final Class<?> mainClass, final Path log, final String... args)
        {
            final List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("--enable-native-access=ALL-UNNAMED");
            command.add("--add-opens");
            command.add("java.base/jdk.internal.misc=ALL-UNNAMED");
            command.add("--add-exports");
            command.add("java.base/jdk.internal.misc=ALL-UNNAMED");
            command.add("-XX:+UseSerialGC");
            command.add("-Xmx128m");
            command.add("-XX:TieredStopAtLevel=1");
            command.add("-Daeronrs.library=" + System.getProperty("aeronrs.library"));
            command.add("-cp");
            command.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
            command.add(mainClass.getName());
            command.addAll(List.of(args));
            return start(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()));
        }

        private Process start(final ProcessBuilder builder)
        {
            try
            {
                final Process process = builder.start();
                processes.add(process);
                return process;
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException(e);
            }
        }

        /** Waits for {@code process} to exit, failing after {@link #TIMEOUT}; returns its exit code. */
        static int waitFor(final Process process, final Path log)
        {
            try
            {
                if (!process.waitFor(TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS))
                {
                    throw new AssertionError("process still running after " + TIMEOUT.multipliedBy(2) + ": " + read(log));
                }
                return process.exitValue();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted");
            }
        }

        @Override
        public void close()
        {
            for (final Process process : processes)
            {
                process.destroy();
            }
            for (final Process process : processes)
            {
                try
                {
                    if (!process.waitFor(10, TimeUnit.SECONDS))
                    {
                        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    }
                }
                catch (final InterruptedException e)
                {
                    process.destroyForcibly();
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** The text of {@code log}, for failure messages. */
    static String read(final Path log)
    {
        try
        {
            return Files.readString(log);
        }
        catch (final IOException e)
        {
            return "(no log: " + e + ")";
        }
    }
}
