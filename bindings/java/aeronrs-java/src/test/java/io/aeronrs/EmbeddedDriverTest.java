package io.aeronrs;

import io.aeronrs.driver.MediaDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;

/** A test with its own embedded driver and client, both closed (and the directory deleted) after each test. */
@Timeout(120)
abstract class EmbeddedDriverTest
{
    Path dir;
    MediaDriver driver;
    Aeron aeron;

    MediaDriver.Context driverContext(final Path dir)
    {
        return TestSupport.driverContext(dir);
    }

    @BeforeEach
    void startDriver()
    {
        dir = TestSupport.tempDir(getClass().getSimpleName());
        driver = MediaDriver.launch(driverContext(dir));
        aeron = Aeron.connect(TestSupport.clientContext(dir));
    }

    @AfterEach
    void stopDriver()
    {
        try
        {
            if (null != aeron)
            {
                aeron.close();
            }
        }
        finally
        {
            if (null != driver)
            {
                driver.close();
            }
            TestSupport.deleteRecursively(dir);
        }
    }
}
