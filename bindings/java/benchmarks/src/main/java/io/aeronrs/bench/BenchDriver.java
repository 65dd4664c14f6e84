package io.aeronrs.bench;

import io.aeronrs.driver.MediaDriver;
import io.aeronrs.driver.ThreadingMode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The one aeronrs media driver both clients of a benchmark run use: embedded, its own
 * directory, all agents on one thread that backs off when idle (the data path of IPC does
 * not go through the driver; it only moves the publisher limit).
 */
final class BenchDriver implements AutoCloseable
{
    final Path dir;
    final MediaDriver driver;

    BenchDriver()
    {
        try
        {
            dir = Files.createTempDirectory("aeronrs-bench-");
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        driver = MediaDriver.launch(new MediaDriver.Context()
            .aeronDirectoryName(dir.resolve("aeron").toString())
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy("backoff")
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true));
    }

    String aeronDirectoryName()
    {
        return driver.aeronDirectoryName();
    }

    @Override
    public void close()
    {
        driver.close();
        dir.toFile().delete();
    }
}
