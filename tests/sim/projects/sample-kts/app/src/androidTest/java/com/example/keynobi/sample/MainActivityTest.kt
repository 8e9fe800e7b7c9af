package com.example.keynobi.sample

import androidx.test.espresso.Espresso.onView
import androidx.test.espresso.action.ViewActions.click
import androidx.test.espresso.assertion.ViewAssertions.matches
import androidx.test.espresso.matcher.ViewMatchers.withId
import androidx.test.espresso.matcher.ViewMatchers.withText
import androidx.test.ext.junit.rules.ActivityScenarioRule
import androidx.test.ext.junit.runners.AndroidJUnit4
import org.junit.Rule
import org.junit.Test
import org.junit.runner.RunWith

@RunWith(AndroidJUnit4::class)
class MainActivityTest {
    @get:Rule
    val rule = ActivityScenarioRule(MainActivity::class.java)

    @Test
    fun launchesWithGreeting() {
        onView(withId(R.id.greeting)).check(matches(withText("Hello from keynobi, Ada!")))
    }

    @Test
    fun tapIncrementsCounter() {
        onView(withId(R.id.tap_button)).perform(click())
        onView(withId(R.id.counter)).check(matches(withText("1 taps")))
    }
}
